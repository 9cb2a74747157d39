import { expect } from 'chai';
import { Subject } from 'rxjs';
import { ComposedKinds, type ComposedWatch } from '../../../src/composite/composedKinds.js';
import type { Informer } from '../../../src/watch/index.js';
import { FakeInformers } from '../fakes/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

/** A tracker and a way to start a kind's watch on fake informers, counting the starts. */
function setup(): {
  kinds: ComposedKinds;
  fakes: FakeInformers;
  start: (kind: typeof CONFIG_MAP) => Promise<ComposedWatch>;
  starts: () => number;
} {
  const kinds = new ComposedKinds();
  const fakes = new FakeInformers();
  let starts = 0;
  const start = (kind: typeof CONFIG_MAP): Promise<ComposedWatch> =>
    kinds.watch(kind, async () => {
      starts += 1;
      const lease = await fakes.registry.acquire(kind.apiVersion, kind.kind);
      return { lease, stop$: new Subject<void>(), synced: Promise.resolve() };
    }) as Promise<ComposedWatch>;
  return { kinds, fakes, start, starts: () => starts };
}

describe('ComposedKinds', () => {
  it('starts one watch per kind, however often it is asked for', async () => {
    const { kinds, start, starts } = setup();
    const [first, second] = await Promise.all([start(CONFIG_MAP), start(CONFIG_MAP)]);
    expect(first).to.equal(second);
    await start(SECRET);
    expect(starts()).to.equal(2);
    expect(kinds.kinds()).to.deep.equal(['v1/ConfigMap', 'v1/Secret']);
  });

  it('starts a watch again after a failed start is forgotten', async () => {
    const { kinds, start, starts } = setup();
    const failed = kinds.watch(CONFIG_MAP, () => Promise.reject(new Error('cannot watch v1/ConfigMap: not served')));
    kinds.forgetFailed(CONFIG_MAP);
    await failed.catch(() => undefined);
    await start(CONFIG_MAP);
    expect(starts()).to.equal(1);
  });

  it('serves a kind from its cache only once its first list is in', async () => {
    const { kinds, fakes, start } = setup();
    const watch = await start(CONFIG_MAP);
    expect(kinds.store(CONFIG_MAP)).to.equal(undefined);
    expect(kinds.isSynced(CONFIG_MAP)).to.equal(false);
    await kinds.tookFirstList(CONFIG_MAP, watch.lease.informer);
    expect(kinds.isSynced(CONFIG_MAP)).to.equal(true);
    expect(kinds.store(CONFIG_MAP)).to.equal(fakes.informer('v1', 'ConfigMap').store);
    fakes.informer('v1', 'ConfigMap').stopped = true;
    expect(kinds.store(CONFIG_MAP), 'a stopped informer serves nothing').to.equal(undefined);
  });

  it('hands back the XRs that read a kind before its first list, each reading it live once', async () => {
    const { kinds, start } = setup();
    const watch = await start(CONFIG_MAP);
    kinds.noteBeforeSync(CONFIG_MAP, 'default/a');
    kinds.noteBeforeSync(CONFIG_MAP, 'default/a');
    kinds.noteBeforeSync(CONFIG_MAP, 'default/b');
    expect(await kinds.tookFirstList(CONFIG_MAP, watch.lease.informer)).to.deep.equal(['default/a', 'default/b']);
    expect([...kinds.takeLiveReads('default/a')]).to.deep.equal(['v1/ConfigMap']);
    expect([...kinds.takeLiveReads('default/a')], 'taken once').to.deep.equal([]);
    kinds.forgetXr('default/b');
    expect([...kinds.takeLiveReads('default/b')], 'a deleted XR is forgotten').to.deep.equal([]);
  });

  it('ignores the first list of an informer it no longer tracks', async () => {
    const { kinds, start } = setup();
    const watch = await start(CONFIG_MAP);
    kinds.noteBeforeSync(CONFIG_MAP, 'default/a');
    expect(await kinds.remove(CONFIG_MAP)).to.equal(watch);
    expect(await kinds.tookFirstList(CONFIG_MAP, watch.lease.informer)).to.deep.equal([]);
    expect(kinds.isSynced(CONFIG_MAP)).to.equal(false);
    const other = { store: undefined, isStopped: () => false } as unknown as Informer;
    await start(CONFIG_MAP);
    expect(await kinds.tookFirstList(CONFIG_MAP, other), 'another informer of the kind').to.deep.equal([]);
    expect(kinds.kinds()).to.deep.equal(['v1/ConfigMap']);
  });

  it('forgets everything on clear and returns the watches that started', async () => {
    const { kinds, start } = setup();
    const watch = await start(CONFIG_MAP);
    const failed = kinds.watch(SECRET, () => Promise.reject(new Error('cannot watch v1/Secret: not served')));
    kinds.noteBeforeSync(CONFIG_MAP, 'default/a');
    expect(await kinds.clear()).to.deep.equal([watch]);
    await failed.catch(() => undefined);
    expect(kinds.kinds()).to.deep.equal([]);
    expect(await kinds.tookFirstList(CONFIG_MAP, watch.lease.informer)).to.deep.equal([]);
  });
});
