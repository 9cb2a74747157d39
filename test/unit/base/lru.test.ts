import { expect } from 'chai';
import { LruMap } from '../../../src/base/index.js';

describe('base/LruMap', () => {
  it('forgets the least recently used entry past max, telling onEvict', () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>({ max: 2, onEvict: (key) => evicted.push(key) });
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).to.equal(1);
    map.set('c', 3);
    expect(evicted).to.deep.equal(['b']);
    expect([...map.keys()]).to.deep.equal(['a', 'c']);
  });

  it('peek reads without using; set uses again; delete and replace tell no one', () => {
    const evicted: string[] = [];
    const map = new LruMap<string, number>({ max: 2, onEvict: (key) => evicted.push(key) });
    map.set('a', 1).set('b', 2);
    expect(map.peek('a')).to.equal(1);
    map.set('c', 3);
    expect(evicted, 'peek did not save a').to.deep.equal(['a']);
    map.set('b', 20);
    map.delete('c');
    expect(evicted).to.deep.equal(['a']);
    expect([...map]).to.deep.equal([['b', 20]]);
  });

  it('deleteWhile forgets from the least recently used on and stops at the first it keeps', () => {
    const map = new LruMap<string, number>({ max: 10 });
    for (const [key, value] of [
      ['a', 1],
      ['b', 5],
      ['c', 2],
    ] as const)
      map.set(key, value);
    map.deleteWhile((value) => value < 3);
    expect([...map.keys()]).to.deep.equal(['b', 'c']);
  });

  it('costs the same per insert however full it is', () => {
    const map = new LruMap<number, number>({ max: 1_000 });
    for (let i = 0; i < 200_000; i++) map.set(i, i);
    expect(map.size).to.equal(1_000);
    expect(map.has(199_000)).to.equal(true);
    expect(map.has(198_999)).to.equal(false);
  });
});
