// The pause annotation on packages and package revisions, as Crossplane v2.3's package reconcilers
// (internal/controller/pkg/manager and revision/reconciler.go): with crossplane.io/paused "true" a reconcile records
// a Normal ReconciliationPaused event, sets Synced False ReconcilePaused and does nothing else; once the annotation is
// gone, the first reconcile clears the conditions (upstream's CleanConditions) and the next one resumes.
import { PAUSED_ANNOTATION, RECONCILE_PAUSED } from '../../controller/index.js';
import { CONTENT_TYPE, type KubeClient } from '../../kube/index.js';
import type { Condition } from '../types.js';
import { writeStatus } from './status.js';

/** Upstream's reconcilePausedMsg of the package reconcilers, the event's message and the condition's. */
export const PACKAGE_PAUSED_MESSAGE = 'Reconciliation (including deletion) is paused via the pause annotation';

export interface Pausable {
  metadata: { annotations?: Record<string, string> };
  status?: { conditions?: Condition[] };
}

export interface PauseInput {
  client: KubeClient;
  object: Pausable;
  /** The object's path, whose status subresource is written. */
  path: string;
  event: (reason: string, message: string) => void;
}

/**
 * Whether the reconcile stops here: paused (its status written), or just unpaused (its conditions cleared). `event`
 * records the Normal event, on every paused reconcile as upstream (the recorder aggregates repeats).
 */
export async function handlePause({ client, object, path, event }: PauseInput, signal: AbortSignal): Promise<boolean> {
  if (isPausedPackage(object)) {
    event('ReconciliationPaused', PACKAGE_PAUSED_MESSAGE);
    const paused = { ...RECONCILE_PAUSED, message: PACKAGE_PAUSED_MESSAGE } as Condition;
    await writeStatus({ client }, { path, stored: object.status }, { conditions: [paused] }, signal);
    return true;
  }
  const synced = object.status?.conditions?.find((c) => c.type === 'Synced');
  if (synced?.reason !== RECONCILE_PAUSED.reason) return false;
  // The write's echo brings the next reconcile, which resumes.
  await client.request('PATCH', `${path}/status`, {
    body: { status: { conditions: null } },
    contentType: CONTENT_TYPE.mergePatch,
    signal,
  });
  return true;
}

/** crossplane.io/paused is "true" (upstream's meta.IsPaused). */
export function isPausedPackage(object: Pick<Pausable, 'metadata'>): boolean {
  return object.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}
