/**
 * The one way compositor turns something thrown into text for a condition, an event or a log line: an Error's
 * message, the message of an Error-like object (a Kubernetes Status in a watch's ERROR event), or the value as a
 * string. With `cause`, an Error's cause is appended after a colon, for messages that would say too little alone
 * ("fetch failed: connect ECONNREFUSED").
 *
 * @example
 * status.setCondition({ type: 'Synced', status: 'False', reason: 'ReconcileError', message: errorMessage(err) });
 */
export function errorMessage(err: unknown, options: { cause?: boolean } = {}): string {
  const message = messageOf(err);
  if (options.cause === true && err instanceof Error && err.cause instanceof Error) {
    return `${message}: ${err.cause.message}`;
  }
  return message;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err) return String(err.message);
  return String(err);
}
