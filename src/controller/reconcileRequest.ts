export const RECONCILE_REQUESTED_AT_ANNOTATION = 'crossplane.io/reconcile-requested-at';

/**
 * The reconcile-request token still to be handled, or undefined. Tokens are opaque (conventionally an RFC 3339
 * time): any value that differs from status.lastHandledReconcileAt is a new request, handled exactly once.
 */
export function pendingReconcileRequest(
  annotations: Readonly<Record<string, string>> | undefined,
  lastHandledReconcileAt: string | undefined,
): string | undefined {
  const token = annotations?.[RECONCILE_REQUESTED_AT_ANNOTATION];
  if (token === undefined || token === '' || token === lastHandledReconcileAt) return undefined;
  return token;
}

/** The Normal event a reconciler emits once it handled the reconcile request `token`. */
export function reconcileRequestHandledEvent(token: string): {
  type: 'Normal';
  reason: 'ReconcileRequestHandled';
  message: string;
} {
  return { type: 'Normal', reason: 'ReconcileRequestHandled', message: `Handled reconcile request ${token}` };
}
