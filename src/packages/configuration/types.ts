// The Configuration package API objects, as far as compositor reads and writes them (unknown fields are kept as sent).
import type { ObjectMeta, OwnerReference } from '../../apis/index.js';
import type { ImageConfigRef } from '../imageconfig/index.js';
import type { Condition, LocalObjectReference, RuntimeConfigRef } from '../types.js';

export type DesiredState = 'Active' | 'Inactive';

/** What a Configuration and its revisions share: how the package is pulled and checked, and what it labels. */
interface PackageSettings {
  packagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  packagePullSecrets?: LocalObjectReference[];
  ignoreCrossplaneConstraints?: boolean;
  skipDependencyResolution?: boolean;
  commonLabels?: Record<string, string>;
  commonAnnotations?: Record<string, string>;
}

export interface Configuration {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: PackageSettings & {
    package: string;
    revisionActivationPolicy?: 'Automatic' | 'Manual';
    revisionHistoryLimit?: number;
  };
  status?: {
    conditions?: Condition[];
    currentRevision?: string;
    currentIdentifier?: string;
    resolvedPackage?: string;
    appliedImageConfigRefs?: ImageConfigRef[];
  };
}

/** An object a revision installed, as status.objectRefs lists it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid?: string;
}

/** What a revision of a kind with a runtime (a ProviderRevision) has besides: its runtime config and TLS Secrets. */
interface RuntimeSettings {
  runtimeConfigRef?: RuntimeConfigRef;
  tlsServerSecretName?: string;
  tlsClientSecretName?: string;
}

export interface ConfigurationRevision {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: PackageSettings & { desiredState: DesiredState; image: string; revision: number } & RuntimeSettings;
  status?: {
    conditions?: Condition[];
    objectRefs?: ObjectRef[];
    /** The image installed, after an ImageConfig's rewrite: upstream's ResolvedPackage. */
    resolvedImage?: string;
    appliedImageConfigRefs?: ImageConfigRef[];
    capabilities?: string[];
    foundDependencies?: number;
    installedDependencies?: number;
    invalidDependencies?: number;
    tlsServerSecretName?: string;
    tlsClientSecretName?: string;
  };
}

export type { OwnerReference };
