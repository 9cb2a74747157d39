// What a package's or revision's status says of the ImageConfigs used: appliedImageConfigRefs, and the revision
// condition saying whether its package's signature was verified. Crossplane v2.3 has no such condition
// (its client fails the pull when verification fails); the names are those of Crossplane up to v2.1
// (apis/pkg/v1/conditions.go: type Verified, reason SignatureVerificationSkipped, True: nothing left to wait for).
import type { Condition } from '../types.js';
import type { ImageResolution } from './resolve.js';
import type { ImageConfigRef } from './types.js';

export const VERIFIED = 'Verified';
export const VERIFICATION_SKIPPED = 'SignatureVerificationSkipped';

/**
 * Verified for a revision: when an ImageConfig asks for verification, that it was not done; otherwise upstream's
 * plain skipped condition. Undefined when there is nothing to say and nothing said before, so a revision no
 * ImageConfig ever asked to verify carries no condition.
 */
export function verificationCondition(
  resolution: Pick<ImageResolution, 'verification'>,
  stored: readonly Condition[] | undefined,
): Condition | undefined {
  if (resolution.verification !== undefined) {
    return {
      type: VERIFIED,
      status: 'True',
      reason: VERIFICATION_SKIPPED,
      message: `ImageConfig "${resolution.verification}" asks for signature verification, which compositor does not do (as Crossplane without --enable-signature-verification): the package was not verified`,
    };
  }
  if (!(stored ?? []).some((c) => c.type === VERIFIED)) return undefined;
  return { type: VERIFIED, status: 'True', reason: VERIFICATION_SKIPPED };
}

/**
 * status.appliedImageConfigRefs: the ImageConfigs used, in the order applied. Upstream's is omitempty, so an empty
 * list is not written and one written before is removed (null in the merge patch).
 */
export function appliedRefsField(
  stored: readonly ImageConfigRef[] | undefined,
  resolution: Pick<ImageResolution, 'applied'>,
): { appliedImageConfigRefs?: ImageConfigRef[] | null } {
  if (resolution.applied.length > 0) return { appliedImageConfigRefs: resolution.applied };
  return stored === undefined ? {} : { appliedImageConfigRefs: null };
}
