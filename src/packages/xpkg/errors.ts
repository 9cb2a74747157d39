// The typed failures of reading a pulled image as a package; size limits are the OCI client's TooLargeError.

export type PackageFailure = 'NotAPackage' | 'InvalidPackage';

export class PackageError extends Error {
  override readonly name: string = 'PackageError';

  constructor(
    readonly reason: PackageFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The image has no package.yaml: in its `io.crossplane.xpkg: base` layer, or anywhere in its filesystem. */
export class NotAPackageError extends PackageError {
  override readonly name = 'NotAPackageError';
  constructor(message: string, options?: ErrorOptions) {
    super('NotAPackage', message, options);
  }
}

/** package.yaml is not a stream of objects the parser knows. */
export class PackageParseError extends PackageError {
  override readonly name = 'PackageParseError';
  constructor(message: string) {
    super('InvalidPackage', message);
  }
}
