// A ProviderRevision's runtime hooks, as Crossplane v2.3's ProviderHooks (internal/controller/pkg/runtime/
// runtime_provider.go), on the package runtime every kind shares (../runtime.ts). pre: the Service and the TLS client
// and server Secrets, before the revision's objects are established, so that its CRD conversion and admission
// webhooks can be pointed at the Service with the server certificate as their CA bundle (upstream's establisher reads
// the same tls.crt); the status then names the Secrets. post: the ServiceAccount and Deployment, and the Deployment's
// health. deactivate: the inactive revision's Deployment is deleted; the Service and Secrets are the Provider's and
// stay.
import type { PreparedRuntime, RevisionRuntime, RuntimeImage } from '../configuration/index.js';
import type { ConfigurationRevision } from '../configuration/types.js';
import type { KubeClient } from '../../kube/index.js';
import { packageName, type RuntimeInput } from '../manifests.js';
import { PackageRuntime, type RuntimeHealth } from '../runtime.js';
import type { TlsBundle, TlsSecrets } from '../secrets.js';
import { PROVIDER_RUNTIME, WEBHOOK_PORT } from './runtimeKind.js';

export interface ProviderRuntimeOptions {
  client: KubeClient;
  /** compositor's namespace: where the runtime objects and Secrets go. */
  namespace: string;
  /** compositor's CA and the Secrets it signs, shared with the Function runtime. */
  secrets: TlsSecrets;
}

/**
 * @example
 * const runtime = new ProviderRuntime({ client, namespace: 'crossplane-system', secrets });
 * const { webhook } = await runtime.pre(revision, signal); // Service and certificates
 * const health = await runtime.post(revision, signal); // ServiceAccount and Deployment
 */
export class ProviderRuntime implements RevisionRuntime {
  private readonly runtime: PackageRuntime;

  constructor(private readonly options: ProviderRuntimeOptions) {
    this.runtime = new PackageRuntime({ ...options, kind: PROVIDER_RUNTIME });
  }

  async pre(revision: ConfigurationRevision, signal: AbortSignal): Promise<PreparedRuntime> {
    const input = await this.runtime.input(revision, signal);
    await this.runtime.applyService(input, signal);
    const provider = packageName(revision);
    const server = await this.certificates(input, signal).catch((err: unknown) => {
      throw new Error(`cannot generate TLS certificates for "${provider}"`, { cause: err });
    });
    const fields: Record<string, unknown> = {};
    const { tlsServerSecretName, tlsClientSecretName } = revision.spec;
    if (tlsServerSecretName !== undefined) fields.tlsServerSecretName = tlsServerSecretName;
    if (tlsClientSecretName !== undefined) fields.tlsClientSecretName = tlsClientSecretName;
    // Upstream points webhooks at the Service named after the provider, whatever the runtime config names it.
    const service = { name: provider, namespace: this.options.namespace, port: WEBHOOK_PORT };
    return { webhook: server === undefined ? undefined : { service, caBundle: server.cert }, fields };
  }

  /** The client and server certificate Secrets; the server one, which the webhooks trust. */
  private async certificates(input: RuntimeInput, signal: AbortSignal): Promise<TlsBundle | undefined> {
    await this.runtime.clientCertificate(input, signal);
    return this.runtime.serverCertificate(input, signal);
  }

  async post(revision: ConfigurationRevision, signal: AbortSignal, image?: RuntimeImage): Promise<RuntimeHealth> {
    const input = await this.runtime.input(revision, signal, image);
    return this.runtime.applyWorkload(input, signal);
  }

  async deactivate(revision: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    await this.runtime.deactivate(revision, signal);
  }
}
