// Smoke run of bench/soak.ts, short enough for CI (~3-4 minutes): two compositor replicas under leader election, a
// steady workload of XR creates, updates and deletes for 150 s, and a fault every 25 s drawn from the blackhole, the
// clean watch cut, the leader's SIGKILL and the API server restart. The audit must be clean at every checkpoint and
// at the end, and kube-apiserver's audit log must show no write by a replica that did not hold the Lease. No timing
// is asserted (CI machines are shared); the recovery times are in the JSON.
import { expect } from 'chai';
import { runSoak, type SoakResult } from '../../bench/soak.js';

describe('bench: soak (smoke, 150 s, two replicas)', function () {
  let result: SoakResult;

  before(async function () {
    result = await runSoak({
      durationMs: 150_000,
      faultEveryMs: 25_000,
      opsPerSecond: 4,
      xrs: 20,
      composed: 2,
      faults: ['watch-cut-blackhole', 'watch-cut-close', 'compositor-sigkill', 'apiserver-restart'],
      seed: 7,
      recoveryTimeoutMs: 180_000,
      replicas: 2,
    });
  });

  it('prints one JSON object with its checkpoints, slopes, operation counts and leadership record', () => {
    const parsed = JSON.parse(JSON.stringify(result)) as SoakResult;
    expect(parsed.benchmark).to.equal('soak');
    expect(parsed.checkpoints.length, 'faults injected').to.be.at.least(2);
    expect(parsed.operations.created, 'XRs created').to.be.greaterThan(20);
    expect(parsed.operations.deleted, 'XRs deleted').to.be.greaterThan(0);
    expect(parsed).to.include.all.keys('rssSlopeMiBPerHour', 'openFdsSlopePerHour', 'final', 'leadership');
  });

  it('finds nothing missing, duplicated, orphaned or stale at any checkpoint, and every XR converged', () => {
    for (const c of [...result.checkpoints, result.final]) {
      expect(c.clean, `${c.fault} at ${c.atSeconds} s: ${JSON.stringify(c.audit)}`).to.equal(true);
      expect(c.recoverySeconds, c.fault).to.not.equal(null);
    }
    expect(result.targets.everyCheckpointClean).to.equal(true);
  });

  it('never lets a replica write without holding the Lease, by the API server audit log', () => {
    const leadership = result.leadership;
    expect(leadership, 'leadership report').to.not.equal(null);
    expect(leadership?.writes, 'replica writes audited').to.be.greaterThan(0);
    expect(leadership?.writesWithoutLease, JSON.stringify(leadership?.examples)).to.equal(0);
    expect(result.targets.neverTwoWriters).to.equal(true);
  });
});
