// Smoke run of bench/platform.ts at a tiny scale (2 XRDs, 2 namespaces, 20 XRs): the JSON it prints has every
// figure, every XR got Ready (the nested ones through their children, the managed ones through the simulated
// provider), the function's calls were counted, and nothing was written at rest. No timing is asserted.
import { expect } from 'chai';
import { platformDefaults, runPlatform, type PlatformResult } from '../../bench/platform.js';

const XRS = 20;

describe('bench: platform (smoke, 2 XRDs, 20 XRs)', function () {
  let result: PlatformResult;

  before(async function () {
    result = await runPlatform({
      ...platformDefaults(),
      xrds: 2,
      namespaces: 2,
      xrs: XRS,
      providerDelayMs: 200,
      idleMs: 2_000,
      driftSamples: 2,
      driftTimeoutMs: 10_000,
      restartWindowMs: 2_000,
      readyTimeoutMs: 60_000,
    });
  });

  it('prints one JSON object with every figure', () => {
    const parsed = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
    expect(parsed).to.include.all.keys(
      'benchmark',
      'controller',
      'function',
      'loadAverage',
      'createSeconds',
      'allReadySeconds',
      'tailAfterLastCreateSeconds',
      'createToReady',
      'apiServer',
      'grpc',
      'drift',
      'memory',
      'watches',
      'startup',
      'restart',
      'targets',
      'countedAt',
    );
    expect(result.benchmark).to.equal('platform');
    expect(result.controller).to.equal('compositor (built)');
    expect(result.createToReady).to.have.all.keys('p50Ms', 'p99Ms', 'maxMs', 'p99MinusProviderDelayMs', 'notReady');
    expect(result.drift.composed).to.have.all.keys('samples', 'timedOut', 'p50Ms', 'p95Ms', 'p99Ms', 'maxMs');
    expect(result.drift.required).to.include.keys('xrs', 'samples', 'timedOut', 'p99Ms');
    expect(result.memory.peakMiB).to.be.greaterThan(0);
    expect(result.memory.idleMiB).to.be.greaterThan(0);
    expect(result.startup.emptyClusterSeconds).to.be.greaterThan(0);
    expect(result.startup.everythingPresentSeconds).to.be.greaterThan(0);
  });

  it('has every XR Ready, the first kind through its two child XRs', () => {
    expect(result.createToReady.notReady, 'XRs not Ready').to.equal(0);
    expect(result.allReadySeconds).to.be.a('number');
    // XRs alternate between the two kinds: half are of the first, each composing two XRs of the second.
    expect(result.childXrs).to.equal(XRS);
    const byRequest = result.apiServer.converging.byRequest;
    expect(byRequest['APPLY xplatform1s.bench.compositor.crossplane.io'], 'child XRs applied').to.be.at.least(XRS);
    // The simulated provider's status writes are the benchmark's own, not the controller's.
    const own = Object.keys(result.apiServer.converging.benchmarkOwn);
    expect(own.some((key) => key.startsWith('PATCH managed') && key.endsWith('/status'))).to.equal(true);
  });

  it('counts the gRPC function calls and writes nothing at rest', () => {
    expect(result.grpc?.callsConverging, 'calls while converging').to.be.greaterThan(0);
    expect(result.apiServer.idle.writes, JSON.stringify(result.apiServer.idle.byRequest)).to.equal(0);
    expect(result.targets.zeroWritesAtRest).to.equal(true);
  });

  it('sees the controller put back a drifted resource and follow a changed required ConfigMap', () => {
    expect(result.drift.composed.samples).to.equal(2);
    expect(result.drift.composed.timedOut).to.equal(0);
    expect(result.drift.required.xrs).to.be.greaterThan(0);
    expect(result.drift.required.timedOut).to.equal(0);
    expect(result.watches.open).to.be.greaterThan(0);
  });
});
