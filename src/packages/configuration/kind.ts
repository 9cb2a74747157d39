// What differs between the package kinds one pair of controllers installs (a Configuration, a Provider): their API
// kinds and paths, what a revision copies from its package's spec, and which of a package's objects a revision
// establishes. The Configuration and ConfigurationRevision controllers take one; a Configuration's is the default.
import type { Condition } from '../types.js';
import type { FetchedPackage, PackageObject } from '../xpkg/index.js';
import { CONFIGURATION_KINDS } from './establisher.js';
import { CONFIGURATION, CONFIGURATION_REVISION, CONFIGURATION_REVISIONS, CONFIGURATIONS } from './names.js';
import type { WebhookTarget } from './runtime.js';

export interface PackageKindSpec {
  /** The package's meta kind (crossplane.yaml), which validation and linting check against. */
  meta: 'Configuration' | 'Provider';
  package: { readonly apiVersion: string; readonly kind: string };
  revision: { readonly apiVersion: string; readonly kind: string };
  /** Collection paths of the package and revision kinds. */
  packages: string;
  revisions: string;
  /** Spec fields a revision copies from its package besides those every package kind has (runtimeConfigRef). */
  copied: readonly string[];
  /** The group/kinds a revision establishes; any other object is left out after linting. */
  establishes: readonly string[];
  /**
   * Spec fields a revision gets from its package's name (a Provider's TLS Secret names, as upstream's package
   * reconciler sets them); none by default.
   */
  named?(packageName: string): Record<string, unknown>;
  /**
   * The objects to establish, from the fetched package (a Provider's CRDs become MRDs); the package's own by default.
   * `webhook` is where the package's webhooks are served, when its runtime has a server certificate.
   */
  objects?(pkg: FetchedPackage, webhook: WebhookTarget | undefined): readonly PackageObject[];
  /** The package's Healthy from its current revision's conditions; RevisionHealthy alone by default. */
  health?(revision: readonly Condition[] | undefined): Condition;
}

export const CONFIGURATION_KIND: PackageKindSpec = {
  meta: 'Configuration',
  package: CONFIGURATION,
  revision: CONFIGURATION_REVISION,
  packages: CONFIGURATIONS,
  revisions: CONFIGURATION_REVISIONS,
  copied: [],
  establishes: CONFIGURATION_KINDS,
};

/** The controller name of a package kind: `packages/configuration.pkg.crossplane.io`. */
export function controllerNameOf(kind: { readonly apiVersion: string; readonly kind: string }): string {
  return `packages/${kind.kind.toLowerCase()}.${kind.apiVersion.split('/')[0] ?? ''}`;
}
