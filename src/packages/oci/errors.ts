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

/** The constructor of a PullError that adds nothing but its reason, named after it ("<reason>Error"). */
type ReasonErrorClass<R extends PullFailure> = new (
  message: string,
  options?: ErrorOptions,
) => PullError & {
  readonly reason: R;
};

/** A PullError class for one reason whose message says all there is to say (no fields of its own). */
function reasonError<R extends PullFailure>(reason: R): ReasonErrorClass<R> {
  const name = `${reason}Error`;
  const errorClass = class extends PullError {
    override readonly name = name;
    declare readonly reason: R;
    constructor(message: string, options?: ErrorOptions) {
      super(reason, message, options);
    }
  };
  // The class's own name too, which loggers report as the error's type (pino's `type`).
  Object.defineProperty(errorClass, 'name', { value: name });
  return errorClass;
}

/** A package reference that is not a fully qualified OCI reference. */
export const InvalidReferenceError = reasonError('InvalidReference');
export type InvalidReferenceError = InstanceType<typeof InvalidReferenceError>;

/** A package pull secret that is not a usable Docker config. */
export const InvalidPullSecretError = reasonError('InvalidPullSecret');
export type InvalidPullSecretError = InstanceType<typeof InvalidPullSecretError>;

/** No HTTP answer at all: connection refused, DNS failure, TLS failure, timeout. */
export const RegistryUnreachableError = reasonError('RegistryUnreachable');
export type RegistryUnreachableError = InstanceType<typeof RegistryUnreachableError>;

/** A manifest of a kind this client does not read (schema 1, an unknown type, no child for the platform). */
export const UnsupportedMediaTypeError = reasonError('UnsupportedMediaType');
export type UnsupportedMediaTypeError = InstanceType<typeof UnsupportedMediaTypeError>;

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
