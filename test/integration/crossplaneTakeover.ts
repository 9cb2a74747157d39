import { renderXrCrd } from '../../src/definition/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { create, CROSSPLANE, update, type WriteRecord } from './crossplaneReplay.js';
import type { RunningEngine, TestApi } from './engine.js';
import { eventually } from './harness.js';

// What the migration tests share: the objects Crossplane's XRD and Composition controllers leave, how compositor's
// writes at a takeover are counted, and when a takeover has settled.

/** Crossplane's XR CRD: what compositor renders, without the two status fields compositor adds. */
export function crossplaneXrCrd(definition: KubeObject): KubeObject {
  const crd = renderXrCrd(definition as never);
  type Version = { schema: { openAPIV3Schema: { properties: { status: { properties: Record<string, unknown> } } } } };
  for (const version of crd.spec.versions as Version[]) {
    const { status } = version.schema.openAPIV3Schema.properties;
    delete status.properties.effectivePollInterval;
    delete status.properties.lastHandledReconcileAt;
  }
  return crd as unknown as KubeObject;
}

/**
 * What Crossplane's XRD reconciler left on an XRD: its finalizers (plain updates) and its status (a plain status
 * update), with the claim kind when it offers one.
 */
export async function crossplaneDefined(
  client: KubeClient,
  definition: KubeObject,
  of: TestApi,
  claimKind?: string,
): Promise<void> {
  const offered = claimKind !== undefined;
  const finalizers = [
    'defined.apiextensions.crossplane.io',
    ...(offered ? ['offered.apiextensions.crossplane.io'] : []),
  ];
  await update(client, definition, { metadata: { finalizers } });
  const stamp = {
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    observedGeneration: (definition.metadata as { generation?: number }).generation,
  };
  const conditions = [{ type: 'Established', status: 'True', reason: 'WatchingCompositeResource', ...stamp }];
  const controllers: Record<string, unknown> = { compositeResourceType: { apiVersion: of.apiVersion, kind: of.kind } };
  if (offered) {
    conditions.push({ type: 'Offered', status: 'True', reason: 'WatchingCompositeResourceClaim', ...stamp });
    controllers.compositeResourceClaimType = { apiVersion: of.apiVersion, kind: claimKind };
  }
  await update(client, definition, { status: { conditions, controllers } }, '/status');
}

/** A CompositionRevision as Crossplane's revision controller makes it: created, then its ValidPipeline condition. */
export async function crossplaneRevision(client: KubeClient, revision: KubeObject): Promise<void> {
  const created = await create(client, revision, CROSSPLANE);
  const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const conditions = [{ type: 'ValidPipeline', status: 'True', reason: 'ValidPipeline', lastTransitionTime: time }];
  await update(client, created, { status: { conditions } }, '/status');
}

/**
 * compositor's writes about the objects named (paths or body names containing one of them), each as "METHOD kind"
 * (plus "/status", and " (dry run)" for a dry run), with how often; Events apart, since how many are recorded depends
 * on timing.
 */
export function countWrites(log: readonly string[], names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of log) {
    if (!names.some((name) => line.includes(name)) || line.includes('/events')) continue;
    const [method = '', path = ''] = line.split(' ');
    const parts = path.split('/');
    const status = parts.at(-1) === 'status';
    const plural = status ? parts.at(-3) : method === 'POST' ? parts.at(-1) : parts.at(-2);
    const dryRun = line.endsWith(DRY_RUN) ? DRY_RUN : '';
    const key = `${method} ${plural ?? ''}${status ? '/status' : ''}${dryRun}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** How the engine's write log marks a dry run. */
export const DRY_RUN = ' (dry run)';

/**
 * Waits until compositor has sent no write for three seconds: the takeover (or an edit) has settled. On a timeout
 * it names the writes of the last three seconds, so a write loop shows what it writes.
 */
export async function settled(engine: RunningEngine): Promise<readonly string[]> {
  let seen = -1;
  await eventually(
    'compositor to stop writing',
    () => {
      const log = engine.writeLog();
      const since = seen;
      seen = log.length;
      if (since === log.length) return Promise.resolve(true);
      const recent = since < 0 ? [] : log.slice(since);
      return Promise.reject(new Error(`still writing: ${recent.length === 0 ? '(first look)' : recent.join(', ')}`));
    },
    { intervalMs: 3_000, timeoutMs: 60_000 },
  );
  return engine.writeLog();
}

/** The writes of a replayed Crossplane reconcile that changed something. */
export function changing(record: WriteRecord): string[] {
  return record.filter((w) => w.changed).map((w) => w.write);
}
