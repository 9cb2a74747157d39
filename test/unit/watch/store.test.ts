import { expect } from 'chai';
import type { KubeObject } from '../../../src/kube/index.js';
import { ObjectStore } from '../../../src/watch/index.js';
import { configMap } from './fakeListerWatcher.js';

describe('watch/ObjectStore', () => {
  const byColour = (o: KubeObject): string[] => Object.values((o.data ?? {}) as Record<string, string>);

  it('keys objects by namespace/name and replaces them', () => {
    const store = new ObjectStore();
    expect(store.set(configMap('a', '1'))).to.equal(undefined);
    expect(store.set(configMap('a', '2'))?.metadata.resourceVersion).to.equal('1');
    expect(store.get('ns/a')?.metadata.resourceVersion).to.equal('2');
    expect(store.size).to.equal(1);
  });

  it('keeps an index in step with set, replace and delete', () => {
    const store = new ObjectStore();
    store.addIndex('colour', byColour);
    store.set(configMap('a', '1', { c: 'red' }));
    store.set(configMap('b', '1', { c: 'red' }));
    expect(store.byIndex('colour', 'red').map((o) => o.metadata.name)).to.have.members(['a', 'b']);
    store.set(configMap('a', '2', { c: 'blue' }));
    expect(store.byIndex('colour', 'red').map((o) => o.metadata.name)).to.deep.equal(['b']);
    expect(store.byIndex('colour', 'blue').map((o) => o.metadata.name)).to.deep.equal(['a']);
    store.delete('ns/b');
    expect(store.byIndex('colour', 'red')).to.deep.equal([]);
  });

  it('keeps one, then several, then one and no object under a value, an object listing a value twice once', () => {
    const store = new ObjectStore();
    store.addIndex('colour', byColour);
    const names = (): string[] => store.byIndex('colour', 'red').map((o) => o.metadata.name);
    store.set(configMap('a', '1', { c: 'red', d: 'red' }));
    expect(names()).to.deep.equal(['a']);
    store.set(configMap('b', '1', { c: 'red' }));
    store.set(configMap('c', '1', { c: 'red' }));
    expect(names()).to.have.members(['a', 'b', 'c']);
    store.delete('ns/a');
    store.delete('ns/c');
    expect(names()).to.deep.equal(['b']);
    store.set(configMap('a', '2', { c: 'red', d: 'red' }));
    expect(names()).to.have.members(['a', 'b']);
    store.delete('ns/a');
    store.delete('ns/b');
    expect(names()).to.deep.equal([]);
    store.set(configMap('b', '2', { c: 'red' }));
    expect(names(), 'indexed again after the value emptied').to.deep.equal(['b']);
  });

  it('indexes objects already cached when an index is added, and keeps the first function of a name', () => {
    const store = new ObjectStore();
    store.set(configMap('a', '1', { c: 'red' }));
    store.addIndex('colour', byColour);
    store.addIndex('colour', () => ['other']);
    expect(store.byIndex('colour', 'red')).to.have.length(1);
    expect(store.byIndex('colour', 'other')).to.have.length(0);
  });

  it('names a missing index in its error', () => {
    expect(() => new ObjectStore().byIndex('nope', 'x')).to.throw('no index named nope');
  });
});
