// The package API objects compositor reads and writes, as far as it uses them (unknown fields are kept as sent).
import type { ObjectMeta } from '../apis/index.js';
import type { Condition } from '../controller/index.js';
import type { ImageConfigRef } from './imageconfig/index.js';

// The kit's condition: package conditions are the same object shape as every other controller's.
export type { Condition };

export interface LocalObjectReference {
  name?: string;
}

export interface RuntimeConfigRef {
  apiVersion?: string;
  kind?: string;
  name: string;
}

export interface FunctionPackage {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: {
    package?: string;
    packagePullPolicy?: string;
    packagePullSecrets?: LocalObjectReference[];
    revisionActivationPolicy?: 'Automatic' | 'Manual';
    revisionHistoryLimit?: number;
    runtimeConfigRef?: RuntimeConfigRef;
    commonLabels?: Record<string, string>;
  };
  status?: {
    conditions?: Condition[];
    currentRevision?: string;
    currentIdentifier?: string;
    resolvedPackage?: string;
    appliedImageConfigRefs?: ImageConfigRef[];
  };
}

export interface FunctionRevision {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: {
    desiredState: 'Active' | 'Inactive';
    image: string;
    revision: number;
    packagePullPolicy?: string;
    packagePullSecrets?: LocalObjectReference[];
    runtimeConfigRef?: RuntimeConfigRef;
    tlsServerSecretName?: string;
    commonLabels?: Record<string, string>;
  };
  status?: {
    conditions?: Condition[];
    endpoint?: string;
    capabilities?: string[];
    /** The image run, after an ImageConfig's rewrite: upstream's ResolvedPackage. */
    resolvedImage?: string;
    appliedImageConfigRefs?: ImageConfigRef[];
  };
}

/**
 * A revision that runs a runtime (a FunctionRevision, a ProviderRevision), as far as its runtime is built from it.
 * The TLS Secret names are the package's (upstream's GetSecretNameWithSuffix), copied to the revision.
 */
export interface RuntimeRevision {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: {
    desiredState: 'Active' | 'Inactive';
    image: string;
    packagePullPolicy?: string;
    packagePullSecrets?: LocalObjectReference[];
    runtimeConfigRef?: RuntimeConfigRef;
    tlsServerSecretName?: string;
    tlsClientSecretName?: string;
  };
}

/** The metadata of a runtime config's templates: what compositor copies onto the objects it renders. */
export type TemplateMeta = Partial<Pick<ObjectMeta, 'name' | 'labels' | 'annotations'>>;

export interface DeploymentRuntimeConfig {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: {
    deploymentTemplate?: { metadata?: TemplateMeta; spec?: Record<string, unknown> };
    serviceTemplate?: { metadata?: TemplateMeta };
    serviceAccountTemplate?: { metadata?: TemplateMeta };
  };
}
