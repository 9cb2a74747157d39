// The typed failures of a pull. Each names a reason a controller can put on a condition as it is, and a message
// that says what was asked of which registry and what the registry answered.

/** Why a pull failed, one word each, for a condition's reason or a metric label. */
export type PullFailure =
  | 'InvalidReference'
  | 'InvalidPullSecret'
  | 'RegistryUnreachable'
  | 'Unauthorized'
  | 'NotFound'
  | 'RegistryError'
  | 'UnsupportedMediaType'
  | 'TooLarge'
  | 'DigestMismatch'
  | 'NotInCache';

/** Every failure of the OCI client is one of these; `reason` tells which. */
export class PullError extends Error {
  override readonly name: string = 'PullError';

  constructor(
    readonly reason: PullFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A package reference that is not a fully qualified OCI reference. */
export class InvalidReferenceError extends PullError {
  override readonly name = 'InvalidReferenceError';
  constructor(message: string) {
    super('InvalidReference', message);
  }
}

/** A package pull secret that is not a usable Docker config. */
export class InvalidPullSecretError extends PullError {
  override readonly name = 'InvalidPullSecretError';
  constructor(message: string) {
    super('InvalidPullSecret', message);
  }
}

/** No HTTP answer at all: connection refused, DNS failure, TLS failure, timeout. */
export class RegistryUnreachableError extends PullError {
  override readonly name = 'RegistryUnreachableError';
  constructor(message: string, options?: ErrorOptions) {
    super('RegistryUnreachable', message, options);
  }
}

/** The registry or its token service answered an HTTP error; `status` is its code. */
export class RegistryResponseError extends PullError {
  override readonly name: string = 'RegistryResponseError';
  constructor(
    reason: PullFailure,
    readonly status: number,
    message: string,
  ) {
    super(reason, message);
  }
}

/** 401 or 403: no credentials, wrong credentials, or credentials without pull access. */
export class RegistryAuthError extends RegistryResponseError {
  override readonly name = 'RegistryAuthError';
  constructor(status: number, message: string) {
    super('Unauthorized', status, message);
  }
}

/** 404: the repository, tag, manifest or blob does not exist. */
export class NotFoundError extends RegistryResponseError {
  override readonly name = 'NotFoundError';
  constructor(message: string) {
    super('NotFound', 404, message);
  }
}

/** A manifest of a kind this client does not read (schema 1, an unknown type, no child for the platform). */
export class UnsupportedMediaTypeError extends PullError {
  override readonly name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super('UnsupportedMediaType', message);
  }
}

/** A manifest, blob or package stream over its size limit. */
export class TooLargeError extends PullError {
  override readonly name = 'TooLargeError';
  constructor(
    readonly limitBytes: number,
    message: string,
  ) {
    super('TooLarge', message);
  }
}

/** Content whose sha256 is not the digest it was asked for by. */
export class DigestMismatchError extends PullError {
  override readonly name = 'DigestMismatchError';
  constructor(
    readonly expected: string,
    readonly actual: string,
    message: string,
  ) {
    super('DigestMismatch', message);
  }
}

/** packagePullPolicy Never and the package is not in the cache. */
export class NotInCacheError extends PullError {
  override readonly name = 'NotInCacheError';
  /** What was missing, e.g. `manifest sha256:… of registry.example.com/org/pkg:v1`. */
  constructor(
    message: string,
    readonly missing: string,
  ) {
    super('NotInCache', message);
  }
}
