// Bounds on what the built-in functions build from user input. Go's functions have none: there a huge format width
// or a join with a long separator just allocates. Here one call holds the only thread for every composite, so a
// result that could never be stored is refused up front, before it is built, with a typed error.

/**
 * Longest string a built-in builds, in UTF-16 code units: twice the 1.5 MiB that etcd stores for a whole object, so
 * no result Kubernetes could keep is refused.
 */
export const MAX_STRING_LENGTH = 3 * 1024 * 1024;

/** A bound of compositor's that Go does not have; the message names what was refused and the bound. */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

/**
 * Throws when a string of `length` would be longer than MAX_STRING_LENGTH; call it before building the string.
 *
 * @example checkStringLength('format', width) // throws LimitError "cannot format: result of ... characters ..."
 */
export function checkStringLength(what: string, length: number): void {
  if (length > MAX_STRING_LENGTH) {
    throw new LimitError(
      `cannot ${what}: result of ${length} characters would be longer than the limit of ${MAX_STRING_LENGTH}`,
    );
  }
}
