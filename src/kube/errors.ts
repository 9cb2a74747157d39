/** A response from the API server with a non-2xx status, carrying the Status object's reason and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof ApiError && err.status === 409;
}

export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiError && err.status === 409 && err.reason === 'AlreadyExists';
}

/**
 * What the API server said about a failed request: the message of its Status object, without the request line the
 * client puts in front of it. Other errors give their own message.
 *
 * @example
 * serverMessage(err); // 'CustomResourceDefinition.apiextensions.k8s.io "xapps.example.org" is invalid: ...'
 */
export function serverMessage(err: unknown): string {
  if (err instanceof ApiError && typeof err.body === 'object' && err.body !== null) {
    const { message } = err.body as { message?: unknown };
    if (typeof message === 'string' && message !== '') return message;
  }
  return err instanceof Error ? err.message : String(err);
}
