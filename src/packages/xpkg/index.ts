// xpkg: Crossplane packages as Crossplane reads them: package.yaml found in an image's `io.crossplane.xpkg: base`
// layer or flattened filesystem, parsed into metadata and objects, validated and linted per package kind with
// Crossplane's messages, and checked against a Crossplane version constraint.
export { PackageClient, type FetchedPackage, type PackageClientOptions } from './client.js';
export { PackageError, NotAPackageError, PackageParseError, type PackageFailure } from './errors.js';
export {
  readPackageStream,
  ANNOTATION_KEY,
  PACKAGE_ANNOTATION,
  STREAM_FILE,
  DEFAULT_MAX_PACKAGE_BYTES,
} from './layout.js';
export { parsePackage } from './parse.js';
export {
  validatePackage,
  lintPackage,
  checkCrossplaneVersion,
  VALIDATION_FAILED,
  LINT_FAILED,
  INCOMPATIBLE,
} from './lint.js';
export { parseConstraint, parseVersion, type Constraint } from './constraints.js';
export { META_GROUP, META_KINDS, isMetaKind, isObjectKind, type PackageKind } from './schemes.js';
export type { PackageMeta, PackageObject, ParsedPackage } from './types.js';
