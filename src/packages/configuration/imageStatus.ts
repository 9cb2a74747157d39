// What the ImageConfigs did to a revision's pull, as its status says it (pull.ts resolves them): status.resolvedImage
// is the reference pulled, appliedImageConfigRefs the ImageConfigs used, Verified says a requested signature
// verification was not done. spec.image stays the reference as written.
import { appliedRefsField, runtimeImageOf, verificationCondition, type ImageResolution } from '../imageconfig/index.js';
import type { Condition } from '../types.js';
import type { RuntimeImage } from './runtime.js';
import type { ConfigurationRevision } from './types.js';

/** What the ImageConfigs did to a revision's pull, as its status says it: fields and the Verified condition. */
export interface ImageStatus {
  fields: Record<string, unknown>;
  conditions: Condition[];
  /** What a runtime runs: the reference pulled, the ImageConfigs' pull secret and runtime config. */
  runtime?: RuntimeImage;
}

/**
 * resolvedImage is the revision's field (upstream's ResolvedPackage is serialized so); resolvedPackage is the
 * package's, which the revision's schema would prune, so a write of it would never settle.
 */
export function imageStatus(rev: ConfigurationRevision, resolution: ImageResolution): ImageStatus {
  const verified = verificationCondition(resolution, rev.status?.conditions);
  return {
    fields: {
      resolvedImage: resolution.resolvedRef,
      ...appliedRefsField(rev.status?.appliedImageConfigRefs, resolution),
    },
    conditions: verified ? [verified] : [],
    runtime: runtimeImageOf(resolution),
  };
}
