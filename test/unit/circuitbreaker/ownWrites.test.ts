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

  it('forgets deleted objects', () => {
    const own = new OwnWrites();
    own.record(at('a', '1'));
    own.forget(at('a', '1'));
    expect(own.size).to.equal(0);
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
