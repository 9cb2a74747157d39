// What CronOperation and WatchOperation share: the Operations they own (read, counted, garbage collected, replaced)
// and the Operation each creates from its template, as Crossplane's two reconcilers do it.
import { controllerReference } from '../apis/index.js';
import { dateOf, type Clock } from '../base/index.js';
import {
  PAUSED_ANNOTATION,
  RECONCILE_PAUSED,
  reconcileError,
  StatusDraft,
  StepError,
  type ConditionInput,
} from '../controller/index.js';
import { isConflict, type EventSink } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { latestSuccessTime, markGarbage, runningOperations } from './history.js';
import type { OpsStore } from './store.js';
import {
  DEFAULT_FAILED_HISTORY_LIMIT,
  DEFAULT_SUCCESSFUL_HISTORY_LIMIT,
  OPS_API_VERSION,
  type CronOperation,
  type Operation,
  type WatchOperation,
} from './types.js';

export type Owner = CronOperation | WatchOperation;

/** The owner a reconcile works on, with what every step of it needs. */
export interface OwnerContext {
  store: OpsStore;
  owner: Owner;
  signal: AbortSignal;
}

/** An owner's reconcile as it reports: where its events go and the status it builds. */
export interface OwnerReport extends OwnerContext {
  events: EventSink;
  draft: StatusDraft;
}

/** Paused: `paused` (Scheduling or Watching False) and Synced False ReconcilePaused written, and nothing else done. */
export async function markOwnerPaused(report: OwnerReport, paused: ConditionInput): Promise<ReconcileResult> {
  report.draft.setCondition(paused);
  report.draft.setCondition(RECONCILE_PAUSED);
  await writeOwnerStatus(report.store, report.owner, report.draft, report.signal);
  return {};
}

/**
 * Reports a failed step (a StepError) as both owner reconcilers do: its Warning event on the owner, Synced False,
 * the status written to `stored` (the owner as last written, when a step wrote it). Always throws: the step's error
 * for the queue's backoff, a conflict met writing the status in its place (retried at once), any other error as is.
 */
export async function failOwner(report: OwnerReport, err: unknown, stored: Owner = report.owner): Promise<never> {
  if (!(err instanceof StepError)) throw err;
  report.events.event(report.owner, { type: 'Warning', reason: err.reason, message: err.message });
  report.draft.setCondition(reconcileError(err.message));
  await writeOwnerStatus(report.store, stored, report.draft, report.signal).catch((writeErr: unknown) => {
    if (isConflict(writeErr)) throw writeErr;
  });
  throw err;
}

/** Runs `run`; a failure becomes a StepError with `reason`, a conflict stays as it is (retried quietly). */
export async function step<T>(reason: string, message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isConflict(err)) throw err;
    throw new StepError(reason, message, { cause: err });
  }
}

export function isPausedOwner(owner: Owner): boolean {
  return owner.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}

/** metav1.Time's form: RFC 3339 in whole seconds. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function draftOf(owner: Owner, clock: Pick<Clock, 'now'>): StatusDraft {
  return new StatusDraft(structuredClone(owner.status ?? {}), owner.metadata.generation, () => dateOf(clock));
}

/** Writes the draft when it changed anything; returns the owner as stored. */
export async function writeOwnerStatus<T extends Owner>(
  store: OpsStore,
  owner: T,
  draft: StatusDraft,
  signal: AbortSignal,
): Promise<T> {
  if (draft.unchanged()) return owner;
  return store.updateStatus({ ...owner, status: draft.toStatus() }, signal);
}

/**
 * Records the owner's Operations in its status (the running ones, the last success) and deletes those past its
 * history limits. Returns the Operations that remain.
 */
export async function tendHistory(
  { store, owner, signal }: OwnerContext,
  ops: readonly Operation[],
  draft: StatusDraft,
): Promise<Operation[]> {
  const success = latestSuccessTime(ops);
  if (success !== undefined) draft.set('lastSuccessfulTime', rfc3339(success));
  const running = runningOperations(ops);
  draft.set('runningOperationRefs', running.length > 0 ? running.map((name) => ({ name })) : undefined);
  const garbage = markGarbage(
    owner.spec.successfulHistoryLimit ?? DEFAULT_SUCCESSFUL_HISTORY_LIMIT,
    owner.spec.failedHistoryLimit ?? DEFAULT_FAILED_HISTORY_LIMIT,
    ops,
  );
  for (const op of garbage) {
    await step('GarbageCollectOperations', `cannot garbage collect Operation "${op.metadata.name}"`, () =>
      store.deleteOperation(op, signal),
    );
  }
  const deleted = new Set(garbage.map((op) => op.metadata.name));
  return ops.filter((op) => !deleted.has(op.metadata.name));
}

/** Deletes the running Operations a Replace policy replaces. */
export async function replaceRunning(
  store: OpsStore,
  ops: readonly Operation[],
  names: readonly string[],
  signal: AbortSignal,
): Promise<void> {
  for (const name of names) {
    const op = ops.find((o) => o.metadata.name === name);
    if (!op) continue;
    await step('ReplaceRunningOperation', `cannot delete running Operation "${name}"`, () =>
      store.deleteOperation(op, signal),
    );
  }
}

/** An Operation from the owner's template: its name, the owner's label, the owner as controller reference. */
export function operationFromTemplate(owner: Owner, name: string, label: string): Operation {
  const template = structuredClone(owner.spec.operationTemplate);
  const { labels, annotations, ...rest } = template.metadata ?? {};
  return {
    apiVersion: OPS_API_VERSION,
    kind: 'Operation',
    metadata: {
      ...rest,
      name,
      labels: { ...labels, [label]: owner.metadata.name },
      ...(annotations ? { annotations } : {}),
      ownerReferences: [controllerReference(owner)],
    },
    spec: template.spec,
  };
}
