import { findCondition, isBeingDeleted, isPaused, type ReconciledObject } from './object.js';
import { pendingReconcileRequest } from './reconcileRequest.js';

/**
 * Settled: Synced and Ready True for the current generation, no reconcile request waiting. Such an XR needs no
 * reconcile soon after a restart: nothing about it changed while compositor was away that its own events (or the
 * next poll) would not bring.
 */
export function isSettled(xr: ReconciledObject): boolean {
  if (isBeingDeleted(xr) || isPaused(xr)) return false;
  if (pendingReconcileRequest(xr.metadata.annotations, xr.status?.lastHandledReconcileAt) !== undefined) return false;
  const generation = xr.metadata.generation;
  return ['Synced', 'Ready'].every((type) => {
    const condition = findCondition(xr, type);
    return condition?.status === 'True' && condition.observedGeneration === generation;
  });
}

/**
 * When a settled XR from the first list after start is reconciled: spread uniformly over the second poll interval
 * after the restart, when its next poll would have been due anyway. Unsettled XRs and fresh events have the workers
 * to themselves meanwhile, and a restart re-runs no settled pipeline in its first interval (bench/scale.ts measured
 * 75% of 1,000 settled XRs in the first minute when the spread started a quarter interval in). Undefined (now) for
 * unsettled XRs.
 */
export function restartDelayMs(
  xr: ReconciledObject,
  pollIntervalMs: number,
  random: () => number = Math.random,
): number | undefined {
  if (!isSettled(xr)) return undefined;
  return Math.round(pollIntervalMs * (1 + random()));
}
