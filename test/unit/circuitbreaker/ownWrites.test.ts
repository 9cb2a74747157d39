import { expect } from 'chai';
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

  it('forgets deleted objects', () => {
    const own = new OwnWrites();
    own.record(at('a', '1'));
    own.forget(at('a', '1'));
    expect(own.size).to.equal(0);
  });
});
