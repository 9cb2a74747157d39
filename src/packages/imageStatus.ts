// What a Function's and its revision's status say of the ImageConfigs (imageconfig/) used for its package, as
// upstream's: the Function's resolvedPackage and the revision's resolvedImage (the rewritten reference the runtime
// runs), both appliedImageConfigRefs (the ImageConfigs used), and the revision's Verified condition.
import {
  appliedRefsField,
  IMAGE_CONFIG_REASON,
  verificationCondition,
  type ImageConfigRef,
  type ImageResolution,
} from './imageconfig/index.js';
import type { Condition, FunctionPackage, FunctionRevision } from './types.js';

/** What a Function's status says of the ImageConfigs used for its package. */
export function packageImageFields(fn: FunctionPackage, image: ImageResolution): Record<string, unknown> {
  return { resolvedPackage: image.resolvedRef, ...appliedRefsField(fn.status?.appliedImageConfigRefs, image) };
}

/** What an active revision's status says of the ImageConfigs used for its runtime: fields and Verified. */
export function revisionImageStatus(
  revision: FunctionRevision,
  image: ImageResolution,
): { fields: Record<string, unknown>; conditions: Condition[] } {
  const verified = verificationCondition(image, revision.status?.conditions);
  return {
    fields: {
      resolvedImage: image.resolvedRef,
      ...appliedRefsField(revision.status?.appliedImageConfigRefs, { applied: revisionRefs(image) }),
    },
    conditions: verified === undefined ? [] : [verified],
  };
}

/** A revision's applied ImageConfigs: the pull's, then the runtime's (upstream's runtime adds ConfigureRuntime). */
function revisionRefs(image: ImageResolution): ImageConfigRef[] {
  const runtime = image.runtimeConfig;
  return runtime === undefined
    ? image.applied
    : [...image.applied, { name: runtime.imageConfig, reason: IMAGE_CONFIG_REASON.runtime }];
}
