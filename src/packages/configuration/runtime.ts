// The runtime hooks a package kind with a runtime gives the revision controller, as Crossplane's package runtime
// Hooks (internal/controller/pkg/runtime/runtime.go): pre before the revision's objects are established (its Service
// and TLS certificates, so webhooks can be pointed at it), post once they are (its ServiceAccount and Deployment,
// and their health), deactivate when the revision is no longer active. A Configuration has none.
import type { RuntimeInput } from '../manifests.js';
import type { RuntimeHealth } from '../runtime.js';
import type { ConfigurationRevision } from './types.js';

/** Where a package's webhooks are served: its Service, and the PEM bundle the API server verifies it with. */
export interface WebhookTarget {
  service: { name: string; namespace: string; port: number };
  caBundle: string;
}

export interface PreparedRuntime {
  /** What the package's webhooks point at; undefined while there is no server certificate. */
  webhook: WebhookTarget | undefined;
  /** Status fields the runtime sets (the TLS Secret names it observed). */
  fields: Record<string, unknown>;
}

export interface RevisionRuntime {
  pre(revision: ConfigurationRevision, signal: AbortSignal): Promise<PreparedRuntime>;
  /** `image`: what the ImageConfigs make of the revision's image (the reference to run, a pull secret, a runtime config). */
  post(revision: ConfigurationRevision, signal: AbortSignal, image?: RuntimeImage): Promise<RuntimeHealth>;
  deactivate(revision: ConfigurationRevision, signal: AbortSignal): Promise<void>;
}

export type RuntimeImage = NonNullable<RuntimeInput['image']>;
