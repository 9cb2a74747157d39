// Runs a live scenario's steps in order against a ScenarioCluster: apply, delete, the scripted action, sleep, then
// each expectation polled until it holds or its `within` (or `deletedWithin`) deadline passes.
import { parseDuration } from '../../../src/apis/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { runAction } from './actions.js';
import type { ScenarioCluster } from './cluster.js';
import { checkOf, type Check, type ExpectContext } from './expectations.js';
import { readManifests, type Expectation, type Scenario, type Step } from './scenario.js';

const DEFAULT_WITHIN = '1m';
const POLL_MS = 250;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a scenario may take at most: every deadline and sleep, plus set-up slack per step. */
export function scenarioBudgetMs(scenario: Scenario): number {
  let total = 0;
  for (const step of scenario.steps ?? []) {
    total += 15_000 + (step.sleep ? parseDuration(step.sleep) : 0);
    for (const e of step.expect ?? []) total += withinMs(e);
  }
  return total;
}

function withinMs(e: Expectation): number {
  const within = e.within ?? e.deletedWithin ?? DEFAULT_WITHIN;
  if (typeof within !== 'string')
    throw new Error(`within must be a duration such as 1m, not ${JSON.stringify(within)}`);
  return parseDuration(within);
}

async function waitFor(what: string, check: Check, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen: string | undefined;
  for (;;) {
    try {
      seen = await check();
    } catch (err) {
      seen = err instanceof Error ? err.message : String(err);
    }
    if (seen === undefined) return;
    if (Date.now() > deadline) throw new Error(`${what}: not met within ${timeoutMs / 1000}s; last seen: ${seen}`);
    await sleep(POLL_MS);
  }
}

export async function runSteps(scenario: Scenario, cluster: ScenarioCluster): Promise<void> {
  const ctx: ExpectContext = { cluster, scenario, xr: undefined };
  const xrKinds = new Set<string>();
  for (const step of scenario.steps ?? []) {
    const expects = step.expect ?? [];
    await applyStep(step, expects, { ctx, xrKinds });
    for (const { object } of readManifests(scenario, step.delete ?? [])) await cluster.delete(object, step.propagation);
    if (step.action !== undefined) await runAction(step.action, cluster);
    if (step.sleep !== undefined) await sleep(parseDuration(step.sleep));
    await expectAll(step, expects, ctx);
  }
}

/** Applies a step's manifests; remembers the kinds XRDs define and the last XR applied. */
async function applyStep(
  step: Step,
  expects: readonly Expectation[],
  { ctx, xrKinds }: { ctx: ExpectContext; xrKinds: Set<string> },
): Promise<void> {
  const mustFail = expects.some((e) => e.applyFails === true);
  for (const { file, object } of readManifests(ctx.scenario, step.apply ?? [])) {
    const applied = await applyOne(ctx.cluster, object, file, mustFail);
    if (object.kind === 'CompositeResourceDefinition') xrKinds.add(xrdKind(object));
    if (applied && xrKinds.has(`${object.apiVersion.split('/')[0] ?? ''}/${object.kind}`)) ctx.xr = applied;
  }
}

async function expectAll(step: Step, expects: readonly Expectation[], ctx: ExpectContext): Promise<void> {
  for (const [i, e] of expects.entries()) {
    if (e.applyFails === true) continue;
    const what = `step ${step.name}, expectation ${i + 1} ${JSON.stringify(withoutNotes(e))}`;
    await waitFor(what, checkOf(e, ctx), withinMs(e));
  }
}

function withoutNotes(e: Expectation): Expectation {
  const { basis: _basis, note: _note, ...rest } = e;
  return rest;
}

function xrdKind(xrd: KubeObject): string {
  const spec = (xrd as { spec?: { group?: string; names?: { kind?: string } } }).spec;
  return `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
}

/**
 * Applies one object. When the step expects admission to reject it, a success is the failure; otherwise the apply
 * is retried briefly while its kind is not served yet (a CRD on its way).
 */
async function applyOne(
  cluster: ScenarioCluster,
  object: KubeObject,
  file: string,
  mustFail: boolean,
): Promise<KubeObject | undefined> {
  if (mustFail) {
    const accepted = await cluster.apply(object).then(
      () => true,
      () => false,
    );
    if (accepted) throw new Error(`${file}: ${object.kind} ${object.metadata.name} was accepted; upstream rejects it`);
    return undefined;
  }
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await cluster.apply(object);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!message.includes('is not served') || Date.now() > deadline) {
        throw new Error(`${file}: ${message}`, { cause: err });
      }
      await sleep(POLL_MS);
    }
  }
}
