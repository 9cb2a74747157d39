// Whether a stored revision already holds everything the Configuration controller would apply to it, so that the
// apply is skipped: a revision Crossplane's package manager made is adopted as it is, and a pass that finds nothing
// new writes nothing. Only an equal value counts: a field the apply would set differently, or one it would drop that
// the revision has, means a write.
import { isDeepStrictEqual } from 'node:util';
import { LABEL_PARENT_PACKAGE } from '../names.js';
import type { ConfigurationRevision, OwnerReference } from './types.js';

/** The spec fields every package kind's revision copies from its package, as upstream's package reconciler does. */
export const COPIED_SPEC_FIELDS = [
  'packagePullPolicy',
  'packagePullSecrets',
  'ignoreCrossplaneConstraints',
  'skipDependencyResolution',
  'commonLabels',
  'commonAnnotations',
] as const;

/** The spec fields the controller applies to every revision; a kind may copy more (a Provider's runtimeConfigRef). */
export const APPLIED_SPEC_FIELDS = ['desiredState', 'image', 'revision', ...COPIED_SPEC_FIELDS] as const;

export interface DesiredRevision {
  parent: string;
  controller: OwnerReference;
  spec: Record<string, unknown>;
  /** The spec fields this kind copies besides APPLIED_SPEC_FIELDS (kind.ts `copied`). */
  extraFields?: readonly string[];
}

export function revisionCurrent(stored: ConfigurationRevision | undefined, want: DesiredRevision): boolean {
  if (stored === undefined || stored.metadata.labels?.[LABEL_PARENT_PACKAGE] !== want.parent) return false;
  const owner = stored.metadata.ownerReferences?.find((r) => r.uid === want.controller.uid);
  if (owner === undefined || !isDeepStrictEqual(comparable(owner), comparable(want.controller))) return false;
  const storedSpec: Record<string, unknown> = { ...stored.spec };
  return [...APPLIED_SPEC_FIELDS, ...(want.extraFields ?? [])].every((field) =>
    isDeepStrictEqual(storedSpec[field], want.spec[field]),
  );
}

function comparable(ref: OwnerReference): unknown {
  const { apiVersion, kind, name, uid, controller, blockOwnerDeletion } = ref;
  return { apiVersion, kind, name, uid, controller: controller === true, block: blockOwnerDeletion === true };
}
