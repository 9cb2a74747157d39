// What the ImageConfigs make of one package reference before it is pulled, in the order of crossplane-runtime v2.3's
// package client (pkg/xpkg/client.go, Get): the reference is rewritten first (matched against the reference as
// written), then the pull secret and the verification are looked up for the rewritten one. Each ImageConfig used is
// recorded with its reason, in that order, for status.appliedImageConfigRefs.
//
// Signature verification is not done. Upstream verifies only with its alpha --enable-signature-verification; with
// the flag off its validator accepts every image and the ImageConfig is still recorded as VerifyImage, and one
// without a cosign section fails the pull. compositor does the same, and says on the revision that nothing was
// verified (verificationCondition).
import { bestMatch, longestPrefix } from './match.js';
import { IMAGE_CONFIG_REASON, type ImageConfig, type ImageConfigRef } from './types.js';

export interface ImageResolution {
  /** The reference as written. */
  ref: string;
  /** The reference to pull: rewritten by an ImageConfig, or `ref`. */
  resolvedRef: string;
  /** The name of the pull Secret an ImageConfig adds to the package's own, read from compositor's namespace. */
  pullSecret?: string;
  /** The ImageConfig whose verification would apply (not done: see the header). */
  verification?: string;
  /**
   * The DeploymentRuntimeConfig an ImageConfig names for the rewritten image, in place of the revision's
   * runtimeConfigRef; recorded (ConfigureRuntime) on the revision by its runtime, not in `applied`, as upstream.
   */
  runtimeConfig?: { imageConfig: string; name: string };
  applied: ImageConfigRef[];
}

/** A matching ImageConfig the pull cannot go on with; its message is upstream's. */
export class ImageConfigError extends Error {
  override readonly name = 'ImageConfigError';
}

/**
 * Resolves a reference against the ImageConfigs.
 *
 * @example
 * resolveImage(configs, 'xpkg.crossplane.io/org/app:v1')
 * // { ref, resolvedRef: 'mirror.example.org/org/app:v1', applied: [{ name: 'mirror', reason: 'RewriteImage' }] }
 */
export function resolveImage(configs: readonly ImageConfig[], ref: string): ImageResolution {
  const applied: ImageConfigRef[] = [];
  const resolvedRef = rewrite(configs, ref, applied);
  const resolution: ImageResolution = { ref, resolvedRef, applied };
  const secret = bestMatch(configs, resolvedRef, 'pullSecret');
  const secretName = secret?.spec?.registry?.authentication?.pullSecretRef?.name;
  if (secret !== undefined && secretName !== undefined) {
    resolution.pullSecret = secretName;
    applied.push({ name: secret.metadata.name, reason: IMAGE_CONFIG_REASON.pullSecret });
  }
  const runtimeConfig = runtimeConfigOf(configs, resolvedRef);
  if (runtimeConfig !== undefined) resolution.runtimeConfig = runtimeConfig;
  const verify = verification(configs, resolvedRef);
  if (verify !== undefined) {
    resolution.verification = verify;
    applied.push({ name: verify, reason: IMAGE_CONFIG_REASON.verify });
  }
  return resolution;
}

/** The runtime config the best runtime ImageConfig names; one naming none leaves the revision's (upstream). */
function runtimeConfigOf(
  configs: readonly ImageConfig[],
  resolvedRef: string,
): ImageResolution['runtimeConfig'] | undefined {
  const config = bestMatch(configs, resolvedRef, 'runtime');
  const name = config?.spec?.runtime?.configRef?.name;
  return config === undefined || name === undefined ? undefined : { imageConfig: config.metadata.name, name };
}

/** The ImageConfig whose verification applies; one without a cosign section fails as upstream's store does. */
function verification(configs: readonly ImageConfig[], resolvedRef: string): string | undefined {
  const config = bestMatch(configs, resolvedRef, 'verification');
  if (config === undefined) return undefined;
  if (config.spec?.verification?.cosign == null) {
    throw new ImageConfigError('cannot get image verification config: cosign verification config is missing');
  }
  return config.metadata.name;
}

function rewrite(configs: readonly ImageConfig[], ref: string, applied: ImageConfigRef[]): string {
  const config = bestMatch(configs, ref, 'rewrite');
  if (config === undefined) return ref;
  const prefix = config.spec?.rewriteImage?.prefix ?? '';
  if (prefix === '') throw new ImageConfigError('cannot get image rewrite config: rewrite prefix is missing');
  applied.push({ name: config.metadata.name, reason: IMAGE_CONFIG_REASON.rewrite });
  return prefix + ref.slice(longestPrefix(config, ref)?.length ?? 0);
}

/** The source a tag listing reads: rewritten as a reference would be, without recording anything. */
export function resolveSource(configs: readonly ImageConfig[], source: string): string {
  return rewrite(configs, source, []);
}

/** What a package runtime takes of the ImageConfigs: the image to run, their pull secret, their runtime config. */
export function runtimeImageOf(image: ImageResolution): { ref: string; pullSecret?: string; runtimeConfig?: string } {
  return {
    ref: image.resolvedRef,
    ...(image.pullSecret !== undefined ? { pullSecret: image.pullSecret } : {}),
    ...(image.runtimeConfig !== undefined ? { runtimeConfig: image.runtimeConfig.name } : {}),
  };
}
