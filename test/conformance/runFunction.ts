// RunFunction vectors: the request goes through the built-in the vector's upstream repository names, called as
// the pipeline calls it (a RoutingRunner choosing the built-in by the Function's package), and the whole response
// is compared in protojson form as the corpus writes it.
import { expect } from 'chai';
import {
  BUILTIN_RELEASES,
  builtinFunctions,
  RoutingRunner,
  type Resource,
  type RunFunctionRequest,
  type RunFunctionResponse,
  type State,
} from '../../src/functions/index.js';
import type { Vector } from './corpus.js';
import { plain } from './check.js';

type Json = Record<string, unknown>;

/** The Function the vector exercises: its `function`, else its upstream repository's name. */
function functionOf(v: Vector): string {
  return v.function ?? v.upstream?.repo?.split('/').pop() ?? '';
}

function mapValues<A, B>(record: Record<string, A> | undefined, fn: (a: A) => B): Record<string, B> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(Object.entries(record).map(([k, a]) => [k, fn(a)]));
}

/** The corpus writes connection detail bytes as UTF-8 strings. */
function resourceIn(r: Json): Resource {
  const out = { ...r } as Resource;
  const details = mapValues(r.connectionDetails as Record<string, string> | undefined, (s) => Buffer.from(s, 'utf8'));
  if (details !== undefined) out.connectionDetails = details;
  return out;
}

function stateIn(s: Json | undefined): State | undefined {
  if (s === undefined) return undefined;
  const out: State = {};
  if (s.composite !== undefined) out.composite = resourceIn(s.composite as Json);
  const resources = mapValues(s.resources as Record<string, Json> | undefined, resourceIn);
  if (resources !== undefined) out.resources = resources;
  return out;
}

export function requestIn(r: Json): RunFunctionRequest {
  const req = { ...r } as RunFunctionRequest;
  const observed = stateIn(r.observed as Json | undefined);
  const desired = stateIn(r.desired as Json | undefined);
  if (observed !== undefined) req.observed = observed;
  if (desired !== undefined) req.desired = desired;
  return req;
}

function nonEmpty<T extends object>(m: T | undefined): T | undefined {
  return m === undefined || Object.keys(m).length === 0 ? undefined : m;
}

function resourceOut(r: Resource): Json {
  return {
    resource: r.resource,
    connectionDetails: mapValues(nonEmpty(r.connectionDetails), (b) => Buffer.from(b).toString('utf8')),
    ready: r.ready === 'READY_UNSPECIFIED' ? undefined : r.ready,
  };
}

function stateOut(s: State | undefined): Json | undefined {
  if (s === undefined) return undefined;
  return {
    composite: s.composite && resourceOut(s.composite),
    resources: mapValues(nonEmpty(s.resources), resourceOut),
  };
}

/** A response as protojson prints it: proto3 leaves out empty strings, empty maps and empty lists. */
export function responseOut(rsp: RunFunctionResponse): unknown {
  const ttl = rsp.meta?.ttlMs;
  return plain({
    meta: rsp.meta && {
      tag: rsp.meta.tag === '' ? undefined : rsp.meta.tag,
      ttl: ttl === undefined ? undefined : `${ttl / 1000}s`,
    },
    desired: stateOut(rsp.desired),
    results: nonEmpty(rsp.results),
    context: rsp.context,
    requirements: rsp.requirements,
    conditions: nonEmpty(rsp.conditions),
    output: rsp.output,
  });
}

function upstreamPackage(name: string): string {
  const release = BUILTIN_RELEASES[name];
  if (release === undefined) throw new Error(`${name} is not a built-in`);
  return `xpkg.crossplane.io/crossplane-contrib/${name}:${release.reference}`;
}

export async function runFunction(v: Vector): Promise<void> {
  const name = functionOf(v);
  // The CEL health checks are alpha upstream; the upstream test that exercises them turns the gate on.
  const celHealthChecks = v.upstream?.test?.startsWith('TestCELHealthcheckCustomizations') === true;
  const runner = new RoutingRunner({
    builtins: builtinFunctions({ autoReady: { celHealthChecks } }),
    // The release each built-in was checked against, so the router picks the built-in as it would in a cluster.
    functionOf: () => Promise.resolve({ metadata: {}, spec: { package: upstreamPackage(name) } }),
    remote: { run: () => Promise.reject(new Error(`${v.id}: ${name} is not a built-in`)) },
  });
  const rsp = await runner.run({ functionName: name, step: 'conformance', request: requestIn(v.request ?? {}) });
  const expected = (v.expect as { response?: unknown } | undefined)?.response;
  expect(responseOut(rsp), v.id).to.deep.equal(expected);
}
