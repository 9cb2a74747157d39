/** What a reconcile returns. Failure is a thrown error, never a flag. */
export interface ReconcileResult {
  /** Reconcile the key again after this long even if nothing changes (e.g. a function response TTL). */
  requeueAfterMs?: number;
  /**
   * With requeueAfterMs: reconcile as soon as this settles instead, if that comes first (the key still waits then:
   * one reconcile either way). Used to look again once the watch has delivered what the reconcile wrote.
   */
  expediteWhen?: Promise<unknown>;
}

/** Reconciles one key. Must honour `signal`: it is aborted when shutdown's deadline passes. */
export type Reconciler = (key: string, signal: AbortSignal) => Promise<ReconcileResult>;

/** A finished reconcile, classified once; `result` is also its controller_runtime_reconcile_total label. */
export type ReconcileOutcome =
  | { result: 'success' }
  | { result: 'requeue_after'; requeueAfterMs: number; expediteWhen?: Promise<unknown> }
  | { result: 'requeue' }
  | { result: 'error'; error: unknown };

export function outcomeOfResult(result: ReconcileResult | undefined): ReconcileOutcome {
  const after = result?.requeueAfterMs;
  // NaN and non-positive delays mean "no requeue", as controller-runtime treats RequeueAfter <= 0.
  if (after !== undefined && after > 0) {
    const expediteWhen = result?.expediteWhen;
    return { result: 'requeue_after', requeueAfterMs: after, ...(expediteWhen ? { expediteWhen } : {}) };
  }
  return { result: 'success' };
}

/** Conflicts retry at once and quietly (the cache was stale, nothing is wrong); anything else backs off. */
export function outcomeOfError(error: unknown, isConflict?: (error: unknown) => boolean): ReconcileOutcome {
  if (isConflict?.(error) === true) return { result: 'requeue' };
  return { result: 'error', error };
}
