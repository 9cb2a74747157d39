// A Provider package's CRDs as Crossplane v2.3 installs them (internal/converter/custom_to_managed.go, called by the
// ProviderRevision reconciler): every CRD but the provider's configuration kinds becomes a ManagedResourceDefinition of
// the same name whose spec is the CRD's; the MRD controller creates the CRD once the MRD is Active. A provider without
// the safe-start capability gets its MRDs Active at once; one with it leaves them Inactive (the MRD's default) for an
// activation policy to turn on.
import type { PackageObject } from '../xpkg/index.js';
import { CRD, MRD } from './names.js';

/** The CRD kinds that stay CRDs: a provider's configuration, not managed resources (upstream's isManagedResource). */
const CONFIGURATION_KINDS: readonly string[] = [
  'ProviderConfig',
  'ClusterProviderConfig',
  'ProviderConfigUsage',
  'ClusterProviderConfigUsage',
];

/** The capability that makes a provider's MRDs start Inactive (pkg/meta/v1 ProviderCapabilitySafeStart). */
export const SAFE_START = 'safe-start';

/**
 * Whether `capabilities` holds `key`, compared as upstream's CapabilitiesContainFuzzyMatch: letters and digits only,
 * case-insensitive, so "SafeStart", "safe-start" and "safe_start" are one.
 */
export function hasCapability(capabilities: readonly string[] | undefined, key: string): boolean {
  const fuzzy = (s: string): string => s.replace(/[^a-zA-Z0-9]+/g, '').toLowerCase();
  return (capabilities ?? []).some((c) => fuzzy(c) === fuzzy(key));
}

/** Upstream's refusal of a webhook-converted CRD without the runtime's TLS bundle (establisher.go). */
export const CONVERSION_WITHOUT_CA = 'cannot deploy a CRD with webhook conversion strategy without having a TLS bundle';

/**
 * Refuses a package with a CRD converted by webhook when there is no runtime TLS bundle to point it at (no runtime
 * runs): the conversion webhook is served by the provider's runtime. Upstream refuses the same way without the
 * bundle, and nothing of the package is installed.
 */
export function checkConversion(objects: readonly PackageObject[]): void {
  const webhook = objects.some((o) => {
    const conversion = (o.spec as { conversion?: { strategy?: unknown } } | undefined)?.conversion;
    return o.kind === CRD.kind && o.apiVersion === CRD.apiVersion && conversion?.strategy === 'Webhook';
  });
  if (webhook) throw new Error(CONVERSION_WITHOUT_CA);
}

/** The package's objects with each managed resource CRD as an MRD; other objects are returned as they are. */
export function toManagedResourceDefinitions(
  objects: readonly PackageObject[],
  capabilities: readonly string[] | undefined,
): PackageObject[] {
  const active = !hasCapability(capabilities, SAFE_START);
  return objects.map((o) => (isManagedResourceCrd(o) ? asMrd(o, active) : o));
}

function isManagedResourceCrd(o: PackageObject): boolean {
  if (o.apiVersion !== CRD.apiVersion || o.kind !== CRD.kind) return false;
  const spec = (o as { spec?: { names?: { kind?: unknown } } }).spec;
  const kind = spec?.names?.kind;
  // As upstream: a CRD whose kind cannot be read is taken for a managed resource.
  return typeof kind !== 'string' || !CONFIGURATION_KINDS.includes(kind);
}

function asMrd(crd: PackageObject, active: boolean): PackageObject {
  const spec = { ...((crd as { spec?: Record<string, unknown> }).spec ?? {}) };
  if (active) spec.state = 'Active';
  const { status: _status, ...rest } = crd as PackageObject & { status?: unknown };
  return { ...rest, ...MRD, spec };
}
