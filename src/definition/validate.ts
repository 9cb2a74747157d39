import { xrdScope, type CompositeResourceDefinition, type XrdVersion } from './xrd.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Everything wrong with an XRD that would stop its CRD from rendering or being accepted, as sorted, one-line
 * messages. An empty list means valid. Reported as Established=False and a Warning event, never a crash.
 */
export function validateXrd(xrd: CompositeResourceDefinition): string[] {
  const { spec } = xrd;
  const problems: string[] = [];
  if (!spec.group) problems.push('spec.group is required');
  if (!spec.names.kind) problems.push('spec.names.kind is required');
  if (!spec.names.plural) problems.push('spec.names.plural is required');
  else if (!DNS_LABEL.test(spec.names.plural))
    problems.push(`spec.names.plural "${spec.names.plural}" must be a lowercase DNS label`);
  if (spec.group && spec.names.plural && xrd.metadata.name !== `${spec.names.plural}.${spec.group}`) {
    problems.push(
      `metadata.name must be "${spec.names.plural}.${spec.group}" (<plural>.<group>), not "${xrd.metadata.name}"`,
    );
  }
  problems.push(...validateVersions(xrd));
  if (spec.claimNames && xrdScope(xrd) !== 'LegacyCluster') {
    problems.push(`spec.claimNames requires scope LegacyCluster, not ${xrdScope(xrd)}`);
  }
  return problems.sort();
}

function validateVersions(xrd: CompositeResourceDefinition): string[] {
  const { versions } = xrd.spec;
  if (versions.length === 0) return ['spec.versions must list at least one version'];
  const problems: string[] = [];
  const referenceable = versions.filter((version) => version.referenceable);
  if (referenceable.length !== 1) {
    problems.push(`exactly one version must be referenceable, found ${referenceable.length}`);
  }
  for (const version of referenceable) {
    if (!version.served) problems.push(`referenceable version "${version.name}" must be served`);
  }
  const seen = new Set<string>();
  for (const version of versions) {
    if (seen.has(version.name)) problems.push(`version "${version.name}" is listed twice`);
    seen.add(version.name);
    problems.push(...validateSchema(version));
  }
  return problems;
}

function validateSchema(version: XrdVersion): string[] {
  const schema = version.schema?.openAPIV3Schema;
  if (!schema) return [`version "${version.name}" has no schema.openAPIV3Schema`];
  const problems: string[] = [];
  for (const part of ['spec', 'status'] as const) {
    const type = schema.properties?.[part]?.type;
    if (type !== undefined && type !== 'object') {
      problems.push(`version "${version.name}": ${part} must be of type object, not ${type}`);
    }
  }
  return problems;
}
