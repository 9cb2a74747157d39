import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { OwnWrites } from '../../../src/circuitbreaker/index.js';

const at = (uid: string, resourceVersion: string) => ({ metadata: { uid, resourceVersion } });

describe('circuitbreaker/OwnWrites', () => {
  it('recognises the exact object versions our writes returned, for several writes before their echoes', () => {
    const own = new OwnWrites();
    own.record(at('a', '10'));
    own.record(at('a', '11'));
    expect(own.isEcho(at('a', '10'))).to.be.true;
    expect(own.isEcho(at('a', '11'))).to.be.true;
    expect(own.isEcho(at('a', '12'))).to.be.false;
    expect(own.isEcho(at('b', '10'))).to.be.false;
  });

  it('does not treat objects without uid or resourceVersion as echoes', () => {
    const own = new OwnWrites();
    own.record({ metadata: { resourceVersion: '1' } });
    expect(own.isEcho({ metadata: { resourceVersion: '1' } })).to.be.false;
    expect(own.isEcho({})).to.be.false;
    expect(own.size).to.equal(0);
  });

  it('keeps only the last few versions per object', () => {
    const own = new OwnWrites({ versionsPerObject: 2 });
    for (const v of ['1', '2', '3']) own.record(at('a', v));
    expect(['1', '2', '3'].map((v) => own.isEcho(at('a', v)))).to.deep.equal([false, true, true]);
  });

  it('is bounded: past the bound the least recently written object is forgotten first', () => {
    const own = new OwnWrites({ maxObjects: 2 });
    own.record(at('a', '1'));
    own.record(at('b', '1'));
    own.record(at('a', '2'));
    own.record(at('c', '1'));
    expect(own.size).to.equal(2);
    expect(own.isEcho(at('b', '1'))).to.be.false;
    expect(own.isEcho(at('a', '2'))).to.be.true;
    expect(own.isEcho(at('c', '1'))).to.be.true;
  });

  it('tells a cached copy that shows our last write to an object from one that predates it', () => {
    const own = new OwnWrites();
    expect(own.showsLastWrite(at('a', '7')), 'nothing of ours remembered: the copy is as good as any').to.be.true;
    own.record(at('a', '10'));
    own.record(at('a', '11'));
    expect(own.showsLastWrite(at('a', '11')), 'the last write').to.be.true;
    expect(own.showsLastWrite(at('a', '10')), 'an earlier write of ours').to.be.false;
    expect(own.showsLastWrite(at('a', '7')), 'older than our writes').to.be.false;
    expect(own.showsLastWrite(at('a', '12')), 'another version before our echo came: may be older').to.be.false;
    expect(own.isEcho(at('a', '10'))).to.be.true;
    expect(own.showsLastWrite(at('a', '12')), 'the echo of an earlier write says nothing of the last').to.be.false;
    expect(own.isEcho(at('a', '11'))).to.be.true;
    expect(own.showsLastWrite(at('a', '11')), 'still, once its echo has come').to.be.true;
    expect(own.showsLastWrite(at('a', '12')), 'a later version, once the echo came before it').to.be.true;
    expect(own.showsLastWrite(at('b', '3')), 'another object').to.be.true;
  });

  it('forgets an object once every write to it has come back, and still knows that echo when judged again', () => {
    const own = new OwnWrites();
    own.record(at('a', '10'));
    own.record(at('a', '11'));
    expect(own.isEcho(at('a', '10'))).to.be.true;
    expect(own.size, 'the echo of the second write is still to come').to.equal(1);
    expect(own.isEcho(at('a', '11'))).to.be.true;
    expect(own.size).to.equal(0);
    expect(own.isEcho(at('a', '11')), 'the same event judged for another XR').to.be.true;
    expect(own.isEcho(at('a', '12')), 'a change by someone else').to.be.false;
    expect(own.showsLastWrite(at('a', '12'))).to.be.true;
  });

  it('remembers settled echoes within a bound', () => {
    const own = new OwnWrites({ recentEchoes: 1 });
    for (const uid of ['a', 'b']) {
      own.record(at(uid, '1'));
      own.isEcho(at(uid, '1'));
    }
    expect(own.isEcho(at('a', '1')), 'pushed out by b').to.be.false;
    expect(own.isEcho(at('b', '1'))).to.be.true;
  });

  it('forgets deleted objects', () => {
    const own = new OwnWrites();
    own.record(at('a', '1'));
    own.forget(at('a', '1'));
    expect(own.size).to.equal(0);
  });

  describe('ahead of the cache', () => {
    const cm = (name: string, resourceVersion: string, apiVersion = 'v1') => ({
      apiVersion,
      kind: 'ConfigMap',
      metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion },
    });
    const ref = (name: string, apiVersion = 'v1') => ({ apiVersion, kind: 'ConfigMap', name, namespace: 'ns' });
    /** A write as the API client makes it: recorded for its echo, remembered with the version it replaced. */
    const write = (own: OwnWrites, object: ReturnType<typeof cm>, replaced: string | undefined) => {
      own.record(object);
      own.remember(object, replaced);
    };

    it('answers with a creation while its echo has not come, and leaves the cache to answer once it has', () => {
      const own = new OwnWrites();
      write(own, cm('a', '10'), undefined);
      expect(own.aheadOfCache(ref('a'), undefined)).to.deep.equal(cm('a', '10'));
      expect(own.aheadOfCache(ref('a', 'other.example/v1'), undefined), 'same kind, other group').to.equal(undefined);
      expect(own.aheadOfCache(ref('b'), undefined), 'never written').to.equal(undefined);
      own.isEcho(cm('a', '10'));
      expect(own.aheadOfCache(ref('a'), undefined), 'gone since the echo: news').to.equal(undefined);
    });

    it('answers with an update only for a cached copy of exactly the version it replaced', () => {
      const own = new OwnWrites();
      write(own, cm('a', '10'), '7');
      expect(own.aheadOfCache(ref('a'), cm('a', '7'))).to.deep.equal(cm('a', '10'));
      expect(own.aheadOfCache(ref('a'), cm('a', '10')), 'the echo').to.equal(undefined);
      expect(own.aheadOfCache(ref('a'), cm('a', '12')), 'a later change').to.equal(undefined);
      expect(own.aheadOfCache(ref('a'), cm('a', '5')), 'an unknown version').to.equal(undefined);
      expect(own.aheadOfCache(ref('a'), undefined), 'deleted since: not a creation of ours').to.equal(undefined);
    });

    it('chains writes over its own earlier ones the cache has not caught up with', () => {
      const own = new OwnWrites();
      write(own, cm('a', '10'), '7');
      write(own, cm('a', '11'), '10');
      expect(own.aheadOfCache(ref('a'), cm('a', '7'))).to.deep.equal(cm('a', '11'));
      expect(own.aheadOfCache(ref('a'), cm('a', '10'))).to.deep.equal(cm('a', '11'));
      write(own, cm('a', '13'), '12');
      expect(own.aheadOfCache(ref('a'), cm('a', '7')), 'written over what someone else wrote: a fresh start').to.equal(
        undefined,
      );
    });

    it('lets go of an object deleted by the writer or reported deleted', () => {
      const own = new OwnWrites();
      write(own, cm('a', '10'), '7');
      write(own, cm('b', '20'), '17');
      own.letGo(cm('a', '10'));
      own.forget(cm('b', '20'));
      expect(own.aheadOfCache(ref('a'), cm('a', '7'))).to.equal(undefined);
      expect(own.aheadOfCache(ref('b'), cm('b', '17'))).to.equal(undefined);
    });

    it('keeps a write only until the cache has caught up: its echo, or a look at a newer copy', () => {
      const own = new OwnWrites();
      write(own, cm('a', '10'), '7');
      write(own, cm('b', '20'), '17');
      write(own, cm('c', '30'), undefined);
      expect(own.aheadSize).to.equal(3);
      own.isEcho(cm('a', '10'));
      expect(own.aheadOfCache(ref('b'), cm('b', '21')), 'the cache moved on').to.equal(undefined);
      expect(own.aheadOfCache(ref('c'), undefined)).to.deep.equal(cm('c', '30'));
      expect(own.aheadSize, 'a echoed, b seen past').to.equal(1);
      expect(own.aheadOfCache(ref('b'), cm('b', '17')), 'not answered again, even for the old copy').to.equal(
        undefined,
      );
    });

    it('keeps at most maxAhead objects, the least recently written forgotten first', () => {
      const own = new OwnWrites({ maxAhead: 2 });
      for (const name of ['a', 'b', 'c']) write(own, cm(name, '10'), '7');
      expect(own.aheadOfCache(ref('a'), cm('a', '7'))).to.equal(undefined);
      expect(own.aheadOfCache(ref('c'), cm('c', '7'))).to.deep.equal(cm('c', '10'));
    });
  });

  describe('echoed', () => {
    /** Whether `promise` has settled once pending callbacks ran. */
    async function settled(promise: Promise<void>): Promise<boolean> {
      let done = false;
      void promise.then(() => (done = true));
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      return done;
    }

    it('settles when the echo of every write has come, not before', async () => {
      const own = new OwnWrites();
      own.record(at('a', '10'));
      own.record(at('b', '20'));
      const both = own.echoed([at('a', '10'), at('b', '20')]);
      own.isEcho(at('a', '10'));
      expect(await settled(both), 'one echo of two').to.be.false;
      own.isEcho(at('b', '19'));
      expect(await settled(both), 'an older version is not the echo').to.be.false;
      own.isEcho(at('b', '20'));
      expect(await settled(both)).to.be.true;
    });

    it('settles at once for echoes that already came and for writes it does not know', async () => {
      const own = new OwnWrites();
      own.record(at('a', '10'));
      own.isEcho(at('a', '10'));
      expect(await settled(own.echoed([at('a', '10'), at('z', '1'), {}]))).to.be.true;
    });

    it('stops waiting for a write forgotten before its echo came: superseded, evicted or deleted', async () => {
      const own = new OwnWrites({ versionsPerObject: 1, maxObjects: 2 });
      own.record(at('a', '1'));
      own.record(at('b', '1'));
      const superseded = own.echoed([at('b', '1')]);
      own.record(at('b', '2'));
      expect(await settled(superseded), 'superseded').to.be.true;
      const evicted = own.echoed([at('a', '1')]);
      own.record(at('c', '1'));
      expect(await settled(evicted), 'evicted').to.be.true;
      const deleted = own.echoed([at('c', '1')]);
      expect(await settled(deleted), 'still waiting').to.be.false;
      own.forget(at('c', '1'));
      expect(await settled(deleted), 'deleted').to.be.true;
    });

    it('with a bound, gives up after its time on the injected clock, or when its signal aborts', async () => {
      const own = new OwnWrites();
      own.record(at('a', '1'));
      const clock = new ManualClock();
      const timed = own.echoed([at('a', '1')], { ms: 5_000, clock });
      clock.advance(4_999);
      expect(await settled(timed), 'before the bound').to.be.false;
      clock.advance(1);
      expect(await settled(timed), 'at the bound').to.be.true;
      expect(clock.pendingTimers()).to.equal(0);
      const abort = new AbortController();
      const aborted = own.echoed([at('a', '1')], { ms: 5_000, clock, signal: abort.signal });
      abort.abort();
      expect(await settled(aborted), 'aborted').to.be.true;
      expect(clock.pendingTimers(), 'no timer left behind').to.equal(0);
      const echoed = own.echoed([at('a', '1')], { ms: 5_000, clock });
      own.isEcho(at('a', '1'));
      expect(await settled(echoed), 'the echo came').to.be.true;
      expect(clock.pendingTimers()).to.equal(0);
    });
  });
});
