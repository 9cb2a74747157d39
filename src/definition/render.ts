import type { CustomResourceDefinition } from '../apis/index.js';
import { baseVersion, crdMetadata, namesWithCategory, type CrdVersion } from './crdVersion.js';
import { compositeColumns, compositeSpecProps, compositeStatusProps, compositorStatusProps } from './machinery.js';
import { xrdScope, type CompositeResourceDefinition, type XrdScope, type XrdVersion } from './xrd.js';

/**
 * The CRD that serves an XRD's composite resources, equal to the one Crossplane v2.3 generates (its
 * ForCompositeResource) plus compositor's two status fields (docs/crds.md): names and versions from the XRD, the
 * user's schema merged with the fields every XR carries, and a controller reference to the XRD so it is garbage
 * collected with it. Pure: call validateXrd first. `ordering` (--enable-composed-resource-ordering) adds the
 * ordering fields to resourceRefs entries.
 */
export function renderXrCrd(
  xrd: CompositeResourceDefinition,
  options: { ordering?: boolean } = {},
): CustomResourceDefinition {
  const scope = xrdScope(xrd);
  const { spec } = xrd;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: crdMetadata(xrd, xrd.metadata.name),
    spec: {
      group: spec.group,
      names: namesWithCategory(spec.names, 'composite'),
      scope: scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
      versions: spec.versions.map((version) => renderVersion(xrd, version, scope, options.ordering === true)),
      ...(spec.conversion ? { conversion: spec.conversion } : {}),
    },
  };
}

function renderVersion(
  xrd: CompositeResourceDefinition,
  version: XrdVersion,
  scope: XrdScope,
  ordering: boolean,
): CrdVersion {
  const rendered = baseVersion(version);
  rendered.additionalPrinterColumns.push(...compositeColumns(scope));
  const { spec, status } = rendered.schema.openAPIV3Schema.properties;
  // The XR fields win over same-named user fields, as upstream's do.
  Object.assign(spec.properties, compositeSpecProps(scope, xrd.spec.defaultCompositionUpdatePolicy, ordering));
  Object.assign(status.properties, compositeStatusProps(scope), compositorStatusProps());
  return rendered;
}
