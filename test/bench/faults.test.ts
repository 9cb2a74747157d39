// Smoke run of bench/faults.ts with 10 XRs: every fault is injected and reported, and after each one every XR
// converges with exactly its composed resources, none lost, duplicated or orphaned. No timing is asserted (the
// silent watch cut waits for a watch's silence deadline and the request deadline, up to ~25 s).
import { expect } from 'chai';
import { faultNames, runFaults, type FaultsResult } from '../../bench/faults.js';

const XRS = 10;
const COMPOSED = 3;

describe('bench: faults (smoke, 10 XRs)', function () {
  let result: FaultsResult;

  before(async function () {
    result = await runFaults({
      xrs: XRS,
      composed: COMPOSED,
      only: [],
      recoveryTimeoutMs: 180_000,
    });
  });

  it('prints one JSON object with a figure for every fault', () => {
    const parsed = JSON.parse(JSON.stringify(result)) as FaultsResult;
    expect(parsed.benchmark).to.equal('faults');
    expect(parsed.faults.map((f) => f.name)).to.deep.equal(faultNames());
    for (const fault of parsed.faults) {
      expect(fault, fault.name).to.include.all.keys('faultSeconds', 'recoverySeconds', 'converged', 'audit');
    }
    expect(parsed.targets).to.have.all.keys('allRecoveredWithin30s', 'nothingLostDuplicatedOrOrphaned');
  });

  it('converges after every fault with nothing lost, duplicated or orphaned', () => {
    for (const fault of result.faults) {
      expect(fault.converged, `${fault.name}: ${JSON.stringify(fault.audit)}`).to.equal(true);
      expect(fault.audit.missing + fault.audit.duplicated + fault.audit.orphaned, fault.name).to.equal(0);
    }
    expect(result.targets.nothingLostDuplicatedOrOrphaned, JSON.stringify(result.final)).to.equal(true);
    expect(result.final.probeFunction.xrs).to.equal(XRS);
    expect(result.final.patchAndTransform.xrs).to.equal(XRS * (faultNames().length - 1));
  });

  it('lets compositor win its own field in the conflict storm', () => {
    const storm = result.faults.find((f) => f.name === 'conflict-storm');
    expect(storm?.details?.fighterWrites).to.be.a('number').greaterThan(0);
    expect(storm?.audit.stale, 'composed fields left with the fighter value').to.equal(0);
  });
});
