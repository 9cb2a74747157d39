// Smoke run of bench/scale.ts with 10 XRs: the JSON it prints has every figure, and the run is correct (every XR
// Ready with exactly its composed resources, the change made during the restart applied); then with a dependency
// chain, and with the two functions over gRPC (5 XRs). No timing is asserted.
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
      'apiServer',
      'events',
      'countedAt',
      'reconcilesPerXr',
      'targets',
    );
    expect(result.benchmark).to.equal('scale');
    expect(result.controller).to.equal('compositor (built)');
    expect(result.cacheTrim).to.equal(true);
    expect(result.latency).to.have.all.keys('samples', 'timedOut', 'p50Ms', 'p95Ms', 'p99Ms', 'maxMs');
    expect(result.restart).to.have.all.keys(
      'windowSeconds',
      'readySeconds',
      'timedFrom',
      'reconcilesInWindow',
      'reconciledRatio',
      'changedReconciledMs',
      'serverWritesInWindow',
      'serverReadsInWindow',
    );
    expect(result.restart.timedFrom).to.equal('readiness');
    expect(result.apiRequestsByVerb).to.be.an('object').that.includes.keys('PATCH');
    expect(result.reconciles).to.be.a('number').greaterThan(0);
    expect(result.peakRssMiB).to.be.greaterThan(0);
  });

  it("counts the controller's requests at the API server, without the benchmark's own", () => {
    const { converging, idle } = result.apiServer;
    // Every XR gets its composed ConfigMaps applied by the controller, never by the benchmark.
    expect(converging.byRequest['APPLY configmaps'], 'ConfigMap applies').to.equal(XRS * COMPOSED);
    // The benchmark created the XRs: its creates are taken out, and counted apart.
    expect(converging.byRequest).to.not.have.property(`POST xscales.bench.compositor.crossplane.io`);
    expect(converging.benchmarkOwn['POST xscales.bench.compositor.crossplane.io']).to.equal(XRS);
    // Readiness is followed by one list and a watch, not by listing every XR over and over.
    expect(converging.benchmarkOwn['LIST xscales.bench.compositor.crossplane.io'], 'lists of XRs').to.equal(1);
    expect(converging.writesPerXr).to.equal(Math.round((converging.writes / XRS) * 100) / 100);
    // Only compositor writes besides the benchmark, so the server's count is compositor's own count (give or take
    // a request in flight when the two were read).
    const clientWrites = ['POST', 'PUT', 'PATCH', 'DELETE'].reduce(
      (t, v) => t + (result.apiRequestsByVerb?.[v] ?? 0),
      0,
    );
    expect(converging.writes).to.be.within(clientWrites - 3, clientWrites + 3);
    expect(idle.byRequest).to.not.have.property('PATCH xscales.bench.compositor.crossplane.io');
    expect(result.countedAt).to.include.keys('apiServer', 'apiRequestsByVerb', 'apiServer.converging.cpuSeconds');
    // kube-apiserver reports its own CPU: it worked while the XRs converged.
    expect(converging.cpuSeconds, 'API server CPU seconds while converging').to.be.a('number').greaterThan(0);
    // And by /proc, for every process: the controller's tree, kube-apiserver and etcd worked while the XRs converged.
    expect(converging.cpu.seconds).to.include.keys('benchmark', 'controller', 'kube-apiserver', 'etcd');
    expect(converging.cpu.seconds.controller, 'controller CPU seconds').to.be.greaterThan(0);
    expect(converging.cpu.seconds['kube-apiserver'], 'kube-apiserver CPU seconds').to.be.greaterThan(0);
    expect(converging.cpu.coresBusy).to.be.greaterThan(0);
  });

  it('counts Event writes of both Event APIs, while converging and until the end of the idle window', () => {
    const { converging, untilIdleEnd, convergingPerXr, untilIdleEndPerXr } = result.events;
    // compositor writes events.k8s.io Events: the two SelectComposition Events of every new XR, some of them perhaps
    // landing just after all Ready was seen.
    expect(untilIdleEnd['POST events.events.k8s.io'], 'Events created').to.be.at.least(2 * XRS);
    expect(untilIdleEndPerXr).to.be.at.least(2);
    expect(convergingPerXr).to.be.greaterThan(0);
    for (const [key, n] of Object.entries(converging)) {
      expect(key).to.match(/^(POST|PUT|PATCH|DELETE|DELETECOLLECTION|APPLY) events(\.events\.k8s\.io)?$/);
      expect(untilIdleEnd[key], `${key} until the end of the idle window`).to.be.at.least(n);
    }
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

describe('bench: scale with a 3-level dependency chain (smoke, 10 XRs)', function () {
  let result: ScaleResult;

  before(async function () {
    result = await runScale({
      ...scaleDefaults(),
      xrs: XRS,
      composed: COMPOSED,
      chain: 3,
      idleMs: 2_000,
      restartWindowMs: 5_000,
      latencySamples: 5,
      readyTimeoutMs: 120_000,
    });
  });

  it('counts Event writes of both Event APIs, while converging and until the end of the idle window', () => {
    const { converging, untilIdleEnd, convergingPerXr, untilIdleEndPerXr } = result.events;
    // compositor writes events.k8s.io Events: the two SelectComposition Events of every new XR, some of them perhaps
    // landing just after all Ready was seen.
    expect(untilIdleEnd['POST events.events.k8s.io'], 'Events created').to.be.at.least(2 * XRS);
    expect(untilIdleEndPerXr).to.be.at.least(2);
    expect(convergingPerXr).to.be.greaterThan(0);
    for (const [key, n] of Object.entries(converging)) {
      expect(key).to.match(/^(POST|PUT|PATCH|DELETE|DELETECOLLECTION|APPLY) events(\.events\.k8s\.io)?$/);
      expect(untilIdleEnd[key], `${key} until the end of the idle window`).to.be.at.least(n);
    }
  });

  it('has every XR Ready with exactly its composed resources', () => {
    expect(result.chain).to.equal(3);
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
    expect(result.apiServer.converging.byRequest['APPLY configmaps'], 'ConfigMap applies').to.equal(XRS * COMPOSED);
  });

  it('creates the links one reconcile after another: at least one reconcile per link and XR', () => {
    // Without the graph each XR composes its three ConfigMaps in its first reconcile; with it, cm-1 waits for a
    // reconcile that sees cm-0, and cm-2 for one that sees cm-1.
    expect(result.reconcilesPerXr, 'reconciles per XR').to.be.a('number').at.least(3);
  });
});

describe('bench: scale with its two functions over gRPC (smoke, 5 XRs)', function () {
  const xrs = 5;
  let result: ScaleResult;

  before(async function () {
    result = await runScale({
      ...scaleDefaults(),
      xrs,
      composed: COMPOSED,
      functions: 'grpc',
      idleMs: 2_000,
      restartWindowMs: 5_000,
      latencySamples: 3,
      readyTimeoutMs: 120_000,
    });
  });

  it('has every XR Ready with exactly its composed resources', () => {
    expect(result.functions).to.equal('grpc');
    expect(result.allReadySeconds, 'all XRs Ready').to.be.a('number');
    expect(result.audit).to.deep.equal({
      xrs,
      ready: xrs,
      composed: xrs * COMPOSED,
      missing: 0,
      duplicated: 0,
      orphaned: 0,
      stale: 0,
    });
  });

  it('calls both functions over gRPC at least once per XR, and counts them apart from the controller', () => {
    const grpc = result.grpc;
    expect(grpc, 'grpc figures').to.not.equal(null);
    const functions = ['function-patch-and-transform', 'function-auto-ready'];
    expect(grpc?.endpoints).to.have.all.keys(...functions);
    for (const fn of functions) {
      // compositor runs no function in-process here: every XR's pipeline reached both stand-ins.
      expect(grpc?.callsConverging[fn], `${fn} calls while converging`).to.be.at.least(xrs);
      expect(grpc?.callsPerNewXr[fn], `${fn} calls per new XR`).to.be.at.least(1);
      expect(grpc?.callsPerMinuteAtRest[fn], `${fn} calls per minute at rest`).to.be.a('number');
      expect(grpc?.peakRssMiB[fn], `${fn} peak RSS`).to.be.greaterThan(0);
      expect(grpc?.idleRssMiB[fn], `${fn} idle RSS`).to.be.greaterThan(0);
      expect(result.apiServer.converging.cpu.seconds, 'CPU per process').to.have.property(fn);
    }
    expect(result.targets.grpcOneCallPerFunctionPerNewXr).to.be.a('boolean');
  });

  it("reflects composed changes through the stand-in's ToCompositeFieldPath and reconciles the restart's change", () => {
    expect(result.latency.samples).to.equal(3);
    expect(result.latency.timedOut).to.equal(0);
    expect(result.restart.changedReconciledMs, 'changed XR reconciled within the restart window').to.be.a('number');
  });
});
