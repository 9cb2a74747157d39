// What CronOperation and WatchOperation share: the Operations they own (read, counted, garbage collected, replaced)
// and the Operation each creates from its template, as Crossplane's two reconcilers do it.
import { dateOf, errorMessage, type Clock } from '../base/index.js';
import { PAUSED_ANNOTATION, StatusDraft } from '../controller/index.js';
import { isConflict } from '../kube/index.js';
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

/** A failed step of an owner's reconcile: the Warning event's reason and the message. */
export class OwnerStepError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    options: { cause: unknown },
  ) {
    super(`${message}: ${errorMessage(options.cause)}`, options);
    this.name = 'OwnerStepError';
  }
}

/** Runs `run`; a failure becomes an OwnerStepError with `reason`, a conflict stays as it is (retried quietly). */
export async function step<T>(reason: string, message: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isConflict(err)) throw err;
    throw new OwnerStepError(reason, message, { cause: err });
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
      ownerReferences: [
        {
          apiVersion: OPS_API_VERSION,
          kind: owner.kind,
          name: owner.metadata.name,
          uid: owner.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: template.spec,
  };
}
