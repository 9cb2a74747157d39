// Smoke run of bench/scale.ts with 10 XRs: the JSON it prints has every figure, and the run is correct (every XR
// Ready with exactly its composed resources, the change made during the restart applied). No timing is asserted.
import { expect } from 'chai';
import { runScale, scaleDefaults, type ScaleResult } from '../../bench/scale.js';

const XRS = 10;
const COMPOSED = 3;

describe('bench: scale (smoke, 10 XRs)', function () {
  let result: ScaleResult;

  before(async function () {
    result = await runScale({
      ...scaleDefaults(),
      xrs: XRS,
      composed: COMPOSED,
      idleMs: 2_000,
      restartWindowMs: 5_000,
      latencySamples: 5,
      readyTimeoutMs: 120_000,
    });
  });

  it('prints one JSON object with every figure', () => {
    const parsed = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
    expect(parsed).to.include.all.keys(
      'benchmark',
      'controller',
      'xrs',
      'composed',
      'cacheTrim',
      'allReadySeconds',
      'reconcilesPerSecond',
      'apiRequestsByVerb',
      'latency',
      'idleApiWritesPerMinute',
      'peakRssMiB',
      'idleRssMiB',
      'restart',
      'targets',
    );
    expect(result.benchmark).to.equal('scale');
    expect(result.controller).to.equal('compositor (built)');
    expect(result.cacheTrim).to.equal(true);
    expect(result.latency).to.have.all.keys('samples', 'timedOut', 'p50Ms', 'p95Ms', 'p99Ms', 'maxMs');
    expect(result.restart).to.have.all.keys(
      'windowSeconds',
      'readySeconds',
      'reconcilesInWindow',
      'reconciledRatio',
      'changedReconciledMs',
    );
    expect(result.apiRequestsByVerb).to.be.an('object').that.includes.keys('POST', 'PATCH');
    expect(result.reconciles).to.be.a('number').greaterThan(0);
    expect(result.peakRssMiB).to.be.greaterThan(0);
  });

  it('has every XR Ready with exactly its composed resources', () => {
    expect(result.allReadySeconds, 'all XRs Ready').to.be.a('number');
    expect(result.audit).to.deep.equal({
      xrs: XRS,
      ready: XRS,
      composed: XRS * COMPOSED,
      missing: 0,
      duplicated: 0,
      orphaned: 0,
      stale: 0,
    });
  });

  it('reflects every composed change in its XR and reconciles the XR changed during the restart', () => {
    expect(result.latency.samples).to.equal(5);
    expect(result.latency.timedOut).to.equal(0);
    expect(result.restart.changedReconciledMs, 'changed XR reconciled within the restart window').to.be.a('number');
  });
});
