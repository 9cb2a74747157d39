import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { REQUIRED_SYNC_WAIT_MS, RequiredKinds } from '../../../src/composite/requiredKinds.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { FakeInformers, rejection, until } from '../fakes/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };

function configMap(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } };
}

const names = (store: { list(): KubeObject[] }): string[] => store.list().map((o) => o.metadata.name);

describe('composite/RequiredKinds', () => {
  it('serves a kind from one shared informer, acquired by the first lookup', async () => {
    const informers = new FakeInformers();
    informers.informer('v1', 'ConfigMap').seed(configMap('a'));
    const required = new RequiredKinds({ informers: informers.registry, clock: new ManualClock() });
    expect(await required.read(CONFIG_MAP, names)).to.deep.equal(['a']);
    informers.informer('v1', 'ConfigMap').add(configMap('b'));
    expect(await required.read(CONFIG_MAP, names)).to.deep.equal(['a', 'b']);
    expect(informers.acquired).to.deep.equal(['v1/ConfigMap']);
  });

  it('waits for the first list, once and at most the bound, then leaves lookups to the API server until it is in', async () => {
    const informers = new FakeInformers();
    const informer = informers.informer('v1', 'ConfigMap', false);
    const clock = new ManualClock();
    const required = new RequiredKinds({ informers: informers.registry, clock });
    let first: string[] | undefined | 'pending' = 'pending';
    void required.read(CONFIG_MAP, names).then((got) => (first = got));
    await until(() => clock.pendingTimers() === 1, 'the bounded wait to start');
    clock.advance(REQUIRED_SYNC_WAIT_MS - 1);
    await Promise.resolve();
    expect(first, 'before the bound').to.equal('pending');
    clock.advance(1);
    await until(() => first !== 'pending', 'the first lookup to give up waiting');
    expect(first, 'after the bound: no cache').to.equal(undefined);
    // No second wait: the next lookup is answered at once.
    expect(await required.read(CONFIG_MAP, names)).to.equal(undefined);
    expect(clock.pendingTimers()).to.equal(0);
    informer.add(configMap('a'));
    informer.sync();
    expect(await required.read(CONFIG_MAP, names)).to.deep.equal(['a']);
  });

  it('rejects with the cause when a kind cannot be watched, and tries again on the next lookup', async () => {
    const informers = new FakeInformers();
    informers.unserved.add('v1/ConfigMap');
    const required = new RequiredKinds({ informers: informers.registry, clock: new ManualClock() });
    const err = await rejection(required.read(CONFIG_MAP, names));
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.match(/^cannot watch required ConfigMap v1: /);
    expect((err as Error).cause).to.be.instanceOf(Error);
    informers.unserved.clear();
    expect(await required.read(CONFIG_MAP, names)).to.deep.equal([]);
  });

  it('gives up a kind on release and every kind on stop', async () => {
    const informers = new FakeInformers();
    const required = new RequiredKinds({ informers: informers.registry, clock: new ManualClock() });
    await required.read(CONFIG_MAP, names);
    await required.read({ apiVersion: 'v1', kind: 'Secret' }, names);
    await required.release(CONFIG_MAP);
    expect(informers.held('v1', 'ConfigMap')).to.equal(0);
    expect(informers.held('v1', 'Secret')).to.equal(1);
    await required.read(CONFIG_MAP, names);
    expect(informers.held('v1', 'ConfigMap'), 'acquired again by the next lookup').to.equal(1);
    await required.stop();
    expect(informers.held('v1', 'ConfigMap')).to.equal(0);
    expect(informers.held('v1', 'Secret')).to.equal(0);
  });

  it('does not read a cache whose informer stopped', async () => {
    const informers = new FakeInformers();
    const informer = informers.informer('v1', 'ConfigMap');
    const required = new RequiredKinds({ informers: informers.registry, clock: new ManualClock() });
    informer.stopped = true;
    expect(await required.read(CONFIG_MAP, names)).to.equal(undefined);
  });
});
