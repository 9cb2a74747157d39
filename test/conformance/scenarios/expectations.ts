// The expectations of a scenario step, each a check that reports what it saw: undefined when met, else a short
// description of the state, which the runner prints when the deadline passes. An expectation of a shape not known
// here fails with its keys named, so a new kind in the corpus is never silently passed.
import { isDeepStrictEqual } from 'node:util';
import { parseDuration } from '../../../src/apis/index.js';
import { findValue } from '../../../src/functions/builtin/fieldpath.js';
import { isNotFound, type KubeObject } from '../../../src/kube/index.js';
import type { ScenarioCluster } from './cluster.js';
import { collectionPath } from './kinds.js';
import { targetObject, type Expectation, type Scenario } from './scenario.js';

export interface ExpectContext {
  cluster: ScenarioCluster;
  scenario: Scenario;
  /** The XR applied last: the owner of `composed` expectations and `<Kind field>` placeholders. */
  xr: KubeObject | undefined;
}

/** One poll of an expectation: undefined when it holds, else what was seen. */
export type Check = () => Promise<string | undefined>;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const COMPOSITE_LABEL = 'crossplane.io/composite';

export async function getObject(ctx: ExpectContext, ref: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await ctx.cluster.client.request<KubeObject>('GET', await ctx.cluster.kinds.path(ref));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function conditionsOf(object: KubeObject | undefined): Condition[] {
  return ((object?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).map((c) => ({ ...c }));
}

function show(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

/** Objects of a kind composed by the XR (selected by the composite label), sorted by name. */
async function composedOf(ctx: ExpectContext, apiVersion: string | undefined, kind: string): Promise<KubeObject[]> {
  if (!ctx.xr) throw new Error(`no XR was applied before an expectation on composed ${kind}`);
  const { kinds, client } = ctx.cluster;
  const info = apiVersion === undefined ? await kinds.resolveKind(kind) : await kinds.resolve(apiVersion, kind);
  const base = collectionPath({ ...info, namespaced: false });
  const list = await client.request<{ items: KubeObject[] }>('GET', base, {
    query: { labelSelector: `${COMPOSITE_LABEL}=${ctx.xr.metadata.name}` },
  });
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** `<Kind field.path>` stands for that field of the one object of Kind the XR composes. */
async function resolveValue(ctx: ExpectContext, value: unknown): Promise<unknown> {
  const placeholder = typeof value === 'string' ? /^<([A-Z]\w*) ([^>]+)>$/.exec(value) : null;
  if (!placeholder) return value;
  const [, kind = '', path = ''] = placeholder;
  const [object] = await composedOf(ctx, undefined, kind);
  return object ? findValue(object, path) : undefined;
}

function fieldCheck(e: Expectation, read: () => Promise<KubeObject | undefined>, ctx: ExpectContext): Check {
  const path = String(e.field);
  return async () => {
    const object = await read();
    if (!object) return 'the object does not exist';
    const value = findValue(object, path);
    if (e.absent === true) return value === undefined ? undefined : `${path} is ${show(value)}`;
    const want = await resolveValue(ctx, e.equals);
    return want !== undefined && isDeepStrictEqual(value, want)
      ? undefined
      : `${path} is ${show(value)}, want ${show(want)}`;
  };
}

function conditionCheck(want: Condition, read: () => Promise<KubeObject | undefined>): Check {
  return async () => {
    const conditions = conditionsOf(await read());
    const found = conditions.find((c) => c.type === want.type);
    const matches =
      found !== undefined &&
      found.status === want.status &&
      (want.reason === undefined || found.reason === want.reason) &&
      (want.message === undefined || found.message === want.message);
    return matches
      ? undefined
      : `conditions ${show(conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message })))}`;
  };
}

function eventCheck(
  want: { type?: string; reason?: string; message?: string },
  target: KubeObject,
  ctx: ExpectContext,
): Check {
  return async () => {
    const list = await ctx.cluster.client.request<{ items: EventObject[] }>('GET', '/apis/events.k8s.io/v1/events');
    const events = list.items.filter(
      (e) => e.regarding?.name === target.metadata.name && e.regarding.kind === target.kind,
    );
    const found = events.some(
      (e) =>
        (want.type === undefined || e.type === want.type) &&
        (want.reason === undefined || e.reason === want.reason) &&
        (want.message === undefined || withoutDetail(e.note) === want.message),
    );
    return found ? undefined : `events ${show(events.map((e) => ({ type: e.type, reason: e.reason, note: e.note })))}`;
  };
}

/**
 * An event's message without the detail Crossplane records with function results: the XR's copy reads
 * `Pipeline step "<step>": <message>`, as Crossplane's composite reconciler records function results.
 */
function withoutDetail(note: string | undefined): string | undefined {
  return note?.replace(/^Pipeline step "[^"]*": /, '');
}

interface EventObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { kind?: string; name?: string };
}

function listCheck(e: Expectation, ctx: ExpectContext): Check {
  const list = e.list as { kinds: string[]; namespace?: string; labelSelector?: string };
  return async () => {
    let count = 0;
    for (const kind of list.kinds) {
      const info = await ctx.cluster.kinds.resolveKind(kind);
      const path = collectionPath(info, list.namespace);
      const found = await ctx.cluster.client.request<{ items: unknown[] }>('GET', path, {
        query: { labelSelector: list.labelSelector },
      });
      count += found.items.length;
    }
    return count === e.count ? undefined : `${count} ${list.kinds.join('/')} objects, want ${String(e.count)}`;
  };
}

function absentCheck(kind: string, name: string, ctx: ExpectContext): Check {
  return async () => {
    const info = await ctx.cluster.kinds.resolveKind(kind);
    const found = await getObject(ctx, { apiVersion: info.apiVersion, kind, metadata: { name } });
    return found ? `${kind} ${name} exists` : undefined;
  };
}

/** The XR a claim (the object of a scenario file) is bound to, through its spec.resourceRef. */
async function compositeOfClaim(ctx: ExpectContext, file: string): Promise<KubeObject | undefined> {
  const claim = await getObject(ctx, targetObject(ctx.scenario, file));
  const ref = (claim?.spec as { resourceRef?: { apiVersion: string; kind: string; name: string } } | undefined)
    ?.resourceRef;
  if (!ref) return undefined;
  return getObject(ctx, { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name } });
}

/** An object named by kind, name and (optional) namespace in the expectation itself. */
async function namedObject(ctx: ExpectContext, e: Expectation): Promise<KubeObject | undefined> {
  const kind = String(e.kind);
  const info = await ctx.cluster.kinds.resolveKind(kind);
  const namespace = typeof e.namespace === 'string' ? e.namespace : undefined;
  return getObject(ctx, { apiVersion: info.apiVersion, kind, metadata: { name: String(e.name), namespace } });
}

/**
 * Neither a claim nor its XR changes (resourceVersion) for the given duration: a settled claim costs no writes.
 * Met once the duration has passed without a change; a change is remembered, so the check then fails at its deadline.
 */
function unchangedCheck(e: Expectation, ctx: ExpectContext): Check {
  const claimFile = Object.values(ctx.scenario.steps ?? [])
    .flatMap((step) => step.apply ?? [])
    .find((file) => file.startsWith('claim'));
  if (!claimFile) throw new Error('claimAndCompositeUnchangedFor: the scenario applies no claim');
  const durationMs = parseDuration(String(e.claimAndCompositeUnchangedFor));
  let first: string | undefined;
  let changed: string | undefined;
  let since = 0;
  return async () => {
    const claim = await getObject(ctx, targetObject(ctx.scenario, claimFile));
    const xr = await compositeOfClaim(ctx, claimFile);
    const versions = `claim ${String(claim?.metadata.resourceVersion)}, XR ${String(xr?.metadata.resourceVersion)}`;
    if (first === undefined) {
      first = versions;
      since = Date.now();
    } else if (versions !== first) changed ??= `changed from ${first} to ${versions}`;
    if (changed) return changed;
    const left = durationMs - (Date.now() - since);
    return left <= 0 ? undefined : `unchanged (${versions}) for ${Math.round((Date.now() - since) / 1000)}s`;
  };
}

/** Expectations on an object named by kind and name: that it is absent, or one of its fields. */
function namedCheck(e: Expectation, ctx: ExpectContext): Check {
  if (e.absent === true && e.field === undefined) return absentCheck(String(e.kind), String(e.name), ctx);
  if (e.field !== undefined) return fieldCheck(e, () => namedObject(ctx, e), ctx);
  throw new Error(`unsupported expectation ${show(Object.keys(e))}`);
}

/** The check of one expectation; throws for a shape this runner does not know. */
export function checkOf(e: Expectation, ctx: ExpectContext): Check {
  if (e.list !== undefined) return listCheck(e, ctx);
  if (e.claimAndCompositeUnchangedFor !== undefined) return unchangedCheck(e, ctx);
  if (typeof e.compositeOf === 'string' && e.field !== undefined) {
    const file = e.compositeOf;
    return fieldCheck(e, () => compositeOfClaim(ctx, file), ctx);
  }
  if (typeof e.kind === 'string' && typeof e.name === 'string') return namedCheck(e, ctx);
  if (e.composed !== undefined && e.field !== undefined) {
    const { apiVersion, kind } = e.composed as { apiVersion: string; kind: string };
    return fieldCheck(e, async () => (await composedOf(ctx, apiVersion, kind))[0], ctx);
  }
  if (typeof e.target !== 'string') throw new Error(`unsupported expectation ${show(Object.keys(e))}`);
  return targetCheck(e, targetObject(ctx.scenario, e.target), ctx);
}

/** Expectations on the object a `target` file holds. */
function targetCheck(e: Expectation, target: KubeObject, ctx: ExpectContext): Check {
  const readTarget = (): Promise<KubeObject | undefined> => getObject(ctx, target);
  if (e.condition !== undefined) return conditionCheck(e.condition as Condition, readTarget);
  if (e.conditionMessage !== undefined) {
    return async () => {
      const conditions = conditionsOf(await readTarget());
      return conditions.some((c) => c.message === e.conditionMessage) ? undefined : `conditions ${show(conditions)}`;
    };
  }
  if (e.field !== undefined) return fieldCheck(e, readTarget, ctx);
  if (e.event !== undefined) return eventCheck(e.event as Record<string, string>, target, ctx);
  if (e.created === true) return async () => ((await readTarget()) ? undefined : 'not created');
  if (e.deletedWithin !== undefined) {
    return async () => ((await readTarget()) ? `${target.kind} ${target.metadata.name} still exists` : undefined);
  }
  throw new Error(`unsupported expectation ${show(Object.keys(e))}`);
}
