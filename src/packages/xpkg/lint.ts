// Crossplane's checks of a parsed package (crossplane-runtime pkg/xpkg/validate.go and lint.go), with their
// messages. Validation must pass before anything is installed: exactly one metadata object, of the package's
// kind, with a well-formed Crossplane version constraint. Linting also checks that every other object is of a kind
// the package kind may carry; Crossplane installs the package anyway and reports lint failures in an event. Each
// returns the first failure, as Crossplane's PackageLinter does.
import { parseConstraint, parseVersion } from './constraints.js';
import type { PackageKind } from './schemes.js';
import type { PackageMeta, PackageObject, ParsedPackage } from './types.js';

/** How Crossplane's revision reconciler prefixes each kind of failure (internal/controller/pkg/revision). */
export const VALIDATION_FAILED = 'validating package contents failed';
export const LINT_FAILED = 'linting package contents failed';
export const INCOMPATIBLE = 'incompatible Crossplane version';

const NOT_EXACTLY_ONE_META = 'not exactly one package meta type';
const BAD_CONSTRAINTS = 'package version constraints are poorly formatted';

/** The first reason the package may not be installed as a `kind`, or undefined when it may. */
export function validatePackage(kind: PackageKind, pkg: ParsedPackage): string | undefined {
  if (pkg.meta.length !== 1) return NOT_EXACTLY_ONE_META;
  for (const meta of pkg.meta) {
    if (meta.kind !== kind) return `package meta type is not ${kind}`;
    const constraint = crossplaneConstraint(meta);
    if (constraint !== undefined && parseConstraint(constraint) === undefined) {
      return `${BAD_CONSTRAINTS}: improper constraint: ${constraint}`;
    }
  }
  return undefined;
}

type ObjectCheck = (o: PackageObject) => string | undefined;

const is =
  (message: string, ...kinds: string[]): ObjectCheck =>
  (o) =>
    kinds.includes(`${o.apiVersion}/${o.kind}`) ? undefined : message;

const isCRD = is(
  'object is not a CRD',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition',
);
const isMRD = is('object is not an MRD', 'apiextensions.crossplane.io/v1alpha1/ManagedResourceDefinition');
const isValidatingWebhook = is(
  'object is not an ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration',
);
const isMutatingWebhook = is(
  'object is not a MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration',
);
const isXRD = is(
  'object is not an XRD',
  'apiextensions.crossplane.io/v1/CompositeResourceDefinition',
  'apiextensions.crossplane.io/v2/CompositeResourceDefinition',
);
const isComposition = is('object is not a Composition', 'apiextensions.crossplane.io/v1/Composition');
const isActivationPolicy = is(
  'object is not an ManagedResourceActivationPolicy',
  'apiextensions.crossplane.io/v1alpha1/ManagedResourceActivationPolicy',
);
const isOperation = is('object is not an Operation', 'ops.crossplane.io/v1alpha1/Operation');
const isCronOperation = is('object is not a CronOperation', 'ops.crossplane.io/v1alpha1/CronOperation');
const isWatchOperation = is('object is not a WatchOperation', 'ops.crossplane.io/v1alpha1/WatchOperation');

/** parser.Or: passes when any check passes, else lists every check's message. */
function or(...checks: ObjectCheck[]): ObjectCheck {
  return (o) => {
    const failures: string[] = [];
    for (const check of checks) {
      const failure = check(o);
      if (failure === undefined) return undefined;
      failures.push(failure);
    }
    return `object did not pass any of the linters with following errors: ${failures.join(', ')}`;
  };
}

const OBJECT_CHECKS: Readonly<Record<PackageKind, ObjectCheck>> = {
  Provider: or(isCRD, isMRD, isValidatingWebhook, isMutatingWebhook),
  Configuration: or(isXRD, isActivationPolicy, isComposition, isOperation, isCronOperation, isWatchOperation),
  Function: isCRD,
};

/** The first lint failure of the package as a `kind` (validation included), or undefined when it is clean. */
export function lintPackage(kind: PackageKind, pkg: ParsedPackage): string | undefined {
  const invalid = validatePackage(kind, pkg);
  if (invalid !== undefined) return invalid;
  for (const object of pkg.objects) {
    const failure = OBJECT_CHECKS[kind](object);
    if (failure !== undefined) return failure;
  }
  return undefined;
}

/**
 * Why the package does not fit this Crossplane version (spec.crossplane.version), or undefined when it does or has
 * no constraint. The caller skips this check when the package sets ignoreCrossplaneConstraints.
 */
export function checkCrossplaneVersion(meta: PackageMeta, crossplaneVersion: string): string | undefined {
  const constraint = crossplaneConstraint(meta);
  if (constraint === undefined) return undefined;
  const incompatible = `package is not compatible with Crossplane version (${crossplaneVersion})`;
  const version = parseVersion(crossplaneVersion);
  if (version === undefined) return `${incompatible}: Invalid Semantic Version`;
  const parsed = parseConstraint(constraint);
  if (parsed === undefined) return `${incompatible}: improper constraint: ${constraint}`;
  return parsed.check(version) ? undefined : incompatible;
}

// spec.crossplane absent means no constraint; present, its version is the constraint (even when empty).
function crossplaneConstraint(meta: PackageMeta): string | undefined {
  const crossplane = meta.spec?.crossplane;
  if (crossplane === undefined) return undefined;
  return typeof crossplane.version === 'string' ? crossplane.version : '';
}
