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

/**
 * Every object a package may carry, by "apiVersion/kind", and what a lint failure calls it (article included, as
 * Crossplane's linters word it, "an ValidatingWebhookConfiguration" too).
 */
const OBJECT_NAMES: Readonly<Record<string, string>> = {
  'apiextensions.k8s.io/v1/CustomResourceDefinition': 'a CRD',
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition': 'a CRD',
  'apiextensions.crossplane.io/v1alpha1/ManagedResourceDefinition': 'an MRD',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': 'an ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': 'a MutatingWebhookConfiguration',
  'apiextensions.crossplane.io/v1/CompositeResourceDefinition': 'an XRD',
  'apiextensions.crossplane.io/v2/CompositeResourceDefinition': 'an XRD',
  'apiextensions.crossplane.io/v1/Composition': 'a Composition',
  'apiextensions.crossplane.io/v1alpha1/ManagedResourceActivationPolicy': 'an ManagedResourceActivationPolicy',
  'ops.crossplane.io/v1alpha1/Operation': 'an Operation',
  'ops.crossplane.io/v1alpha1/CronOperation': 'a CronOperation',
  'ops.crossplane.io/v1alpha1/WatchOperation': 'a WatchOperation',
};

/** Passes the objects OBJECT_NAMES calls `name`; fails any other with "object is not <name>". */
const is =
  (name: string): ObjectCheck =>
  (o) =>
    OBJECT_NAMES[`${o.apiVersion}/${o.kind}`] === name ? undefined : `object is not ${name}`;

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
  Provider: or(
    is('a CRD'),
    is('an MRD'),
    is('an ValidatingWebhookConfiguration'),
    is('a MutatingWebhookConfiguration'),
  ),
  Configuration: or(
    is('an XRD'),
    is('an ManagedResourceActivationPolicy'),
    is('a Composition'),
    is('an Operation'),
    is('a CronOperation'),
    is('a WatchOperation'),
  ),
  Function: is('a CRD'),
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
