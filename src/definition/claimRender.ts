import type { CrdNames, CustomResourceDefinition } from '../apis/index.js';
import { baseVersion, crdMetadata, namesWithCategory, type CrdVersion } from './crdVersion.js';
import { claimColumns, claimSpecProps, compositeStatusProps } from './machinery.js';
import type { CompositeResourceDefinition, XrdVersion } from './xrd.js';

/** The names a v1 XRD gives its claims (spec.claimNames), as in a CRD's names. */
export type ClaimNames = CrdNames;

export function claimNamesOf(xrd: CompositeResourceDefinition): ClaimNames | undefined {
  const names = xrd.spec.claimNames as Partial<ClaimNames> | undefined;
  if (!names?.kind || !names.plural) return undefined;
  return names as ClaimNames;
}

/** The claim CRD's name: <claim plural>.<group>. */
export function claimCrdName(xrd: CompositeResourceDefinition, names: ClaimNames): string {
  return `${names.plural}.${xrd.spec.group}`;
}

/**
 * The CRD that serves an XRD's claims (only v1 LegacyCluster XRDs with spec.claimNames offer them), equal to the
 * one Crossplane v2.3 generates (its ForCompositeResourceClaim): namespaced, the XRD's versions and user schema plus
 * the claim fields, and owned by the XRD so it goes with it. Its status carries upstream's LegacyCluster XR status
 * fields (claimConditionTypes too) and none of compositor's additions.
 */
export function renderClaimCrd(xrd: CompositeResourceDefinition, names: ClaimNames): CustomResourceDefinition {
  const { spec } = xrd;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: crdMetadata(xrd, claimCrdName(xrd, names)),
    spec: {
      group: spec.group,
      names: namesWithCategory(names, 'claim'),
      scope: 'Namespaced',
      versions: spec.versions.map((version) => renderClaimVersion(xrd, version)),
      ...(spec.conversion ? { conversion: spec.conversion } : {}),
    },
  };
}

function renderClaimVersion(xrd: CompositeResourceDefinition, version: XrdVersion): CrdVersion {
  const rendered = baseVersion(version);
  rendered.additionalPrinterColumns.push(...claimColumns());
  const { spec, status } = rendered.schema.openAPIV3Schema.properties;
  Object.assign(spec.properties, claimSpecProps(xrd.spec.defaultCompositeDeletePolicy));
  Object.assign(status.properties, compositeStatusProps('LegacyCluster'));
  return rendered;
}
