// Converts the plain messages of types.ts to and from the objects @grpc/proto-loader serialises. Only Struct,
// Duration and bytes differ between the two forms; every other field has the same name and shape.
import { fromStruct, toStruct, type WireStruct } from './struct.js';
import type {
  Dependencies,
  Dependency,
  JsonObject,
  Requirements,
  Resource,
  ResourceSelector,
  Resources,
  RunFunctionRequest,
  RunFunctionResponse,
  State,
} from './types.js';

type Wire = Record<string, unknown>;

function mapValues<A, B>(record: Record<string, A> | undefined, fn: (a: A) => B): Record<string, B> | undefined {
  if (record === undefined) return undefined;
  const out: Record<string, B> = {};
  for (const [key, value] of Object.entries(record)) out[key] = fn(value);
  return out;
}

function structIn(object: JsonObject | undefined): WireStruct | undefined {
  return object === undefined ? undefined : toStruct(object);
}

function structOut(struct: unknown): JsonObject | undefined {
  // Past the null checks, any object reads as a WireStruct: all its fields are optional.
  return struct === undefined || struct === null ? undefined : fromStruct(struct);
}

function bytesOut(record: unknown): Record<string, Uint8Array> | undefined {
  if (record === undefined || record === null) return undefined;
  return mapValues(record as Record<string, Uint8Array>, (b) => new Uint8Array(b));
}

/** The object without its undefined members, which proto-loader and deep-equality would both trip over. */
function compact<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

function resourceToWire(r: Resource): Wire {
  return compact({ resource: structIn(r.resource), connectionDetails: r.connectionDetails, ready: r.ready });
}

function resourceFromWire(w: Wire): Resource {
  const ready = w.ready as Resource['ready'];
  return compact({
    resource: structOut(w.resource),
    connectionDetails: bytesOut(w.connectionDetails),
    ready: ready === 'READY_UNSPECIFIED' ? undefined : ready,
  });
}

function stateToWire(s: State | undefined): Wire | undefined {
  if (s === undefined) return undefined;
  return compact({
    composite: s.composite && resourceToWire(s.composite),
    resources: mapValues(s.resources, resourceToWire),
  });
}

function stateFromWire(w: unknown): State | undefined {
  if (w === undefined || w === null) return undefined;
  const s = w as Wire;
  return compact({
    composite: s.composite ? resourceFromWire(s.composite as Wire) : undefined,
    resources: mapValues(s.resources as Record<string, Wire> | undefined, resourceFromWire),
  });
}

function resourcesToWire(r: Resources): Wire {
  return { items: (r.items ?? []).map(resourceToWire) };
}

function resourcesFromWire(w: Wire): Resources {
  return { items: ((w.items ?? []) as Wire[]).map(resourceFromWire) };
}

export function requestToWire(req: RunFunctionRequest): Wire {
  return compact({
    meta: req.meta,
    observed: stateToWire(req.observed),
    desired: stateToWire(req.desired),
    input: structIn(req.input),
    context: structIn(req.context),
    extraResources: mapValues(req.extraResources, resourcesToWire),
    credentials: req.credentials,
    requiredResources: mapValues(req.requiredResources, resourcesToWire),
    requiredSchemas: mapValues(req.requiredSchemas, (s) => compact({ openapiV3: structIn(s.openapiV3) })),
    dependencies: dependenciesToWire(req.dependencies),
  });
}

export function requestFromWire(w: Wire): RunFunctionRequest {
  const credentials = mapValues(w.credentials as Record<string, Wire> | undefined, (c) => {
    const data = (c.credentialData as Wire | undefined)?.data;
    return { credentialData: { data: bytesOut(data) ?? {} } };
  });
  return compact({
    meta: w.meta as RunFunctionRequest['meta'],
    observed: stateFromWire(w.observed),
    desired: stateFromWire(w.desired),
    input: structOut(w.input),
    context: structOut(w.context),
    extraResources: mapValues(w.extraResources as Record<string, Wire> | undefined, resourcesFromWire),
    credentials,
    requiredResources: mapValues(w.requiredResources as Record<string, Wire> | undefined, resourcesFromWire),
    requiredSchemas: mapValues(w.requiredSchemas as Record<string, Wire> | undefined, (s) =>
      compact({ openapiV3: structOut(s.openapiV3) }),
    ),
    dependencies: dependenciesFromWire(w.dependencies),
  });
}

function ttlToWire(ms: number | undefined): Wire | undefined {
  if (ms === undefined) return undefined;
  const seconds = Math.trunc(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

function ttlFromWire(w: unknown): number | undefined {
  if (w === undefined || w === null) return undefined;
  const d = w as { seconds?: number | string; nanos?: number };
  return Number(d.seconds ?? 0) * 1000 + (d.nanos ?? 0) / 1e6;
}

export function responseToWire(rsp: RunFunctionResponse): Wire {
  return compact({
    meta: rsp.meta && compact({ tag: rsp.meta.tag, ttl: ttlToWire(rsp.meta.ttlMs) }),
    desired: stateToWire(rsp.desired),
    results: rsp.results,
    context: structIn(rsp.context),
    requirements: rsp.requirements,
    conditions: rsp.conditions,
    output: structIn(rsp.output),
    dependencies: dependenciesToWire(rsp.dependencies),
  });
}

/**
 * proto-loader names the set member of every oneof in a virtual field: `match` for ResourceSelector's oneof and
 * `_<field>` for each proto3 optional field. They are not part of the message.
 */
function withoutVirtual(w: Wire, oneofs: readonly string[] = []): Wire {
  const out: Wire = {};
  for (const [key, value] of Object.entries(w)) {
    const virtual = oneofs.includes(key) || (key.startsWith('_') && typeof value === 'string');
    if (!virtual) out[key] = value;
  }
  return out;
}

/**
 * Dependencies keep their presence: a message that is set but empty is `{ items: [] }`, one that is unset is
 * undefined, since the pipeline carries the graph forward only for the latter.
 */
function dependenciesToWire(d: Dependencies | undefined): Wire | undefined {
  return d === undefined ? undefined : { items: (d.items ?? []).map((item) => compact({ ...item })) };
}

function dependenciesFromWire(w: unknown): Dependencies | undefined {
  if (w === undefined || w === null) return undefined;
  const items = ((w as Wire).items ?? []) as Wire[];
  return {
    items: items.map((item): Dependency => {
      const out = withoutVirtual(item, ['dependsOn']) as Dependency;
      if (out.requiredResource !== undefined) out.requiredResource = withoutVirtual(out.requiredResource as Wire);
      return out;
    }),
  };
}

function selectorFromWire(w: Wire): ResourceSelector {
  return withoutVirtual(w, ['match']);
}

function requirementsFromWire(w: unknown): Requirements | undefined {
  if (w === undefined || w === null) return undefined;
  const r = w as Record<string, Record<string, Wire> | undefined>;
  return compact({
    extraResources: mapValues(r.extraResources, selectorFromWire),
    resources: mapValues(r.resources, selectorFromWire),
    schemas: r.schemas,
  });
}

export function responseFromWire(w: Wire): RunFunctionResponse {
  const meta = w.meta as { tag?: string; ttl?: unknown } | undefined;
  return compact({
    meta: meta && compact({ tag: meta.tag, ttlMs: ttlFromWire(meta.ttl) }),
    desired: stateFromWire(w.desired),
    results: (w.results as Wire[] | undefined)?.map((r) => withoutVirtual(r)),
    context: structOut(w.context),
    requirements: requirementsFromWire(w.requirements),
    conditions: (w.conditions as Wire[] | undefined)?.map((c) => withoutVirtual(c)),
    output: structOut(w.output),
    dependencies: dependenciesFromWire(w.dependencies),
  });
}
