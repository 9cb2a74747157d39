// The ImageConfig API (pkg.crossplane.io/v1beta1), as far as compositor reads it, and the references a package and
// its revision record of the ImageConfigs used for them (status.appliedImageConfigRefs), as Crossplane v2.3 writes
// them (apis/pkg/v1beta1/image_config_types.go, apis/pkg/v1/package_types.go).
import type { ObjectMeta } from '../../apis/index.js';

export const IMAGE_CONFIG = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig' } as const;
export const IMAGE_CONFIGS = '/apis/pkg.crossplane.io/v1beta1/imageconfigs';

export interface ImageMatch {
  /** Only `Prefix` is defined; the CRD defaults it. */
  type?: string;
  prefix: string;
}

export interface ImageConfig {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    matchImages?: ImageMatch[];
    registry?: { authentication?: { pullSecretRef?: { name?: string } } };
    rewriteImage?: { prefix?: string };
    verification?: { provider?: string; cosign?: unknown };
    runtime?: { configRef?: { apiVersion?: string; kind?: string; name: string } };
  };
}

/** Why an ImageConfig was applied: upstream's ImageConfigRefReason values. */
export const IMAGE_CONFIG_REASON = {
  rewrite: 'RewriteImage',
  pullSecret: 'SetImagePullSecret',
  verify: 'VerifyImage',
  runtime: 'ConfigureRuntime',
} as const;

export type ImageConfigReason = (typeof IMAGE_CONFIG_REASON)[keyof typeof IMAGE_CONFIG_REASON];

/** One entry of status.appliedImageConfigRefs. */
export interface ImageConfigRef {
  name: string;
  reason: string;
}
