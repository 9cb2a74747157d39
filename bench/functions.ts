// The built-in function-patch-and-transform against a round trip to a real gRPC function process, and prints one
// JSON object. Run with `npm run bench:functions`.
//
// Built-in: a 10-resource composition in steady state (every resource observed, so every patch, readiness check
// and connection detail runs), called through the RoutingRunner as the pipeline calls it. gRPC: the same request
// sent to a function written with the TypeScript SDK, run as a separate process on loopback (Go functions cannot
// be built here); it answers with the desired state it was given, so the figure is transport + codec cost, which
// is what a real function adds on top of its own work.
import { performance } from 'node:perf_hooks';
import {
  builtinFunctions,
  GrpcFunctionRunner,
  insecureCredentials,
  RoutingRunner,
  staticEndpointResolver,
  type FunctionRunner,
  type JsonObject,
  type RunFunctionRequest,
} from '../src/functions/index.js';
import { startFunction } from '../test/functions/process.js';

const RESOURCES = 10;
const BUILTIN_SECONDS = 3;
const GRPC_CALLS = 1_000;
const WARMUP = 100;

function template(i: number): JsonObject {
  return {
    name: `bucket-${i}`,
    base: { apiVersion: 's3.aws.upbound.io/v1beta1', kind: 'Bucket', spec: { forProvider: { acl: 'private' } } },
    patches: [
      { type: 'FromCompositeFieldPath', fromFieldPath: 'spec.region', toFieldPath: 'spec.forProvider.region' },
      {
        type: 'FromCompositeFieldPath',
        fromFieldPath: 'spec.size',
        toFieldPath: 'spec.forProvider.sizeGb',
        transforms: [{ type: 'math', math: { type: 'Multiply', multiply: 10 } }],
      },
      {
        type: 'CombineFromComposite',
        combine: {
          variables: [{ fromFieldPath: 'metadata.name' }, { fromFieldPath: 'spec.region' }],
          strategy: 'string',
          string: { fmt: `%s-%s-${i}` },
        },
        toFieldPath: 'metadata.annotations[crossplane.io/external-name]',
      },
      {
        type: 'FromCompositeFieldPath',
        fromFieldPath: 'spec.tier',
        toFieldPath: 'spec.forProvider.storageClass',
        transforms: [{ type: 'map', map: { gold: 'STANDARD', silver: 'STANDARD_IA' } }],
      },
      { type: 'ToCompositeFieldPath', fromFieldPath: 'status.atProvider.arn', toFieldPath: `status.arns.bucket${i}` },
    ],
    connectionDetails: [{ name: `endpoint-${i}`, type: 'FromFieldPath', fromFieldPath: 'status.atProvider.endpoint' }],
    readinessChecks: [{ type: 'MatchCondition', matchCondition: { type: 'Ready', status: 'True' } }],
  };
}

function observedBucket(i: number): JsonObject {
  return {
    apiVersion: 's3.aws.upbound.io/v1beta1',
    kind: 'Bucket',
    metadata: { name: `my-xr-${i.toString(16).padStart(12, '0')}`, annotations: {} },
    spec: { forProvider: { acl: 'private', region: 'us-east-2', sizeGb: 50, storageClass: 'STANDARD' } },
    status: {
      atProvider: { arn: `arn:aws:s3:::bucket-${i}`, endpoint: `bucket-${i}.s3.amazonaws.com` },
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
    },
  };
}

function request(): RunFunctionRequest {
  const indexes = Array.from({ length: RESOURCES }, (_, i) => i);
  return {
    meta: { tag: 'bench' },
    input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: indexes.map(template) },
    observed: {
      composite: {
        resource: {
          apiVersion: 'example.org/v1',
          kind: 'XBuckets',
          metadata: { name: 'my-xr', uid: '0b7c4c3e-5d1a-4f7e-9b2a-1a2b3c4d5e6f' },
          spec: { region: 'us-east-2', size: 5, tier: 'gold' },
        },
      },
      resources: Object.fromEntries(indexes.map((i) => [`bucket-${i}`, { resource: observedBucket(i) }])),
    },
    desired: {},
    context: {},
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function round(n: number, digits = 3): number {
  return Number(n.toFixed(digits));
}

interface Figures {
  calls: number;
  callsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
}

/** Calls the runner back to back until the deadline or the call budget, timing each call. */
async function measure(
  runner: FunctionRunner,
  functionName: string,
  budget: { seconds?: number; calls?: number },
): Promise<Figures> {
  const req = request();
  for (let i = 0; i < WARMUP; i++) await runner.run({ functionName, request: req });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + (budget.seconds ?? Infinity) * 1000;
  while (latencies.length < (budget.calls ?? Infinity) && performance.now() < deadline) {
    const t = performance.now();
    await runner.run({ functionName, request: req });
    latencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    calls: latencies.length,
    callsPerSecond: round(latencies.length / seconds, 0),
    p50Ms: round(percentile(latencies, 50)),
    p95Ms: round(percentile(latencies, 95)),
  };
}

async function main(): Promise<void> {
  const builtin = new RoutingRunner({
    builtins: builtinFunctions(),
    functionOf: () =>
      Promise.resolve({
        metadata: {},
        spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8' },
      }),
    remote: { run: () => Promise.reject(new Error('not a built-in')) },
  });
  const builtinFigures = await measure(builtin, 'function-patch-and-transform', { seconds: BUILTIN_SECONDS });

  const fn = await startFunction();
  const grpc = new GrpcFunctionRunner({
    resolveEndpoint: staticEndpointResolver({ probe: fn.endpoint }),
    credentials: insecureCredentials(),
    timeoutMs: 10_000,
  });
  let grpcFigures: Figures;
  try {
    grpcFigures = await measure(grpc, 'probe', { calls: GRPC_CALLS });
  } finally {
    grpc.close();
    await fn.stop();
  }
  const result = {
    benchmark: 'functions',
    node: process.version,
    resources: RESOURCES,
    builtinPatchAndTransform: builtinFigures,
    grpcRoundTrip: { function: 'TypeScript SDK function process on loopback, insecure', ...grpcFigures },
    speedupP50: round(grpcFigures.p50Ms / builtinFigures.p50Ms, 1),
    speedupCallsPerSecond: round(builtinFigures.callsPerSecond / grpcFigures.callsPerSecond, 1),
    target: 'built-in at least 20x faster than the gRPC round trip',
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
