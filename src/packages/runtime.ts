// One active revision's runtime, for any package kind with one (RuntimeKind): its runtime config (the `default` one
// created when absent), the TLS certificate Secrets, ServiceAccount, Deployment and Service in compositor's
// namespace, and the Deployment's health. A Function runs it in one step (ensure); a Provider in upstream's two
// (its Service and certificates before its objects are established, the rest after).
import { createHash } from 'node:crypto';
import { getIfExists, isNotFound, serverSideApply, type KubeClient } from '../kube/index.js';
import {
  buildDeployment,
  buildService,
  buildServiceAccount,
  revisionOwner,
  type Manifest,
  type RuntimeInput,
} from './manifests.js';
import { DEFAULT_RUNTIME_CONFIG, dnsNamesForService, RUNTIME_CONFIG, serviceEndpoint } from './names.js';
import { FUNCTION_RUNTIME, type RuntimeKind } from './runtimeKind.js';
import { FIELD_MANAGER, type TlsBundle, type TlsSecrets } from './secrets.js';
import type { DeploymentRuntimeConfig, RuntimeRevision } from './types.js';

interface DeploymentStatus {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

export interface RuntimeHealth {
  healthy: boolean | undefined;
  message?: string;
}

export interface RuntimeResult {
  endpoint: string;
  health: RuntimeHealth;
}

const PATHS: Record<string, (ns: string, name: string) => string> = {
  Deployment: (ns, name) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`,
  Service: (ns, name) => `/api/v1/namespaces/${ns}/services/${name}`,
  ServiceAccount: (ns, name) => `/api/v1/namespaces/${ns}/serviceaccounts/${name}`,
};

function pathOf(m: Manifest): string {
  const path = PATHS[m.kind];
  if (path === undefined) throw new Error(`cannot apply ${m.kind}: not a runtime kind`);
  return path(m.metadata.namespace, m.metadata.name);
}

/**
 * The Deployment's Available condition as upstream words it (runtime_function.go, runtime_provider.go), `noun`
 * naming the kind.
 */
export function deploymentHealth(
  deployment: DeploymentStatus | undefined,
  noun: RuntimeKind['noun'] = 'function',
): RuntimeHealth {
  const available = deployment?.status?.conditions?.find((c) => c.type === 'Available');
  if (available === undefined) {
    return { healthy: false, message: `${noun} package deployment has no condition of type "Available" yet` };
  }
  if (available.status === 'True') return { healthy: true };
  const why = [available.reason, available.message].filter((s) => s !== undefined && s !== '').join(': ');
  return { healthy: false, message: `${noun} package deployment is unavailable with message: ${why}` };
}

export interface RuntimeOptions {
  client: KubeClient;
  namespace: string;
  secrets: TlsSecrets;
  /** The package kind; a Function's unless given. */
  kind?: RuntimeKind;
}

export class PackageRuntime {
  private readonly kind: RuntimeKind;

  constructor(private readonly options: RuntimeOptions) {
    this.kind = options.kind ?? FUNCTION_RUNTIME;
  }

  /**
   * The revision's DeploymentRuntimeConfig, or the one an ImageConfig names in its place; the `default` one is created
   * (empty) when absent, as upstream.
   */
  async runtimeConfig(
    revision: RuntimeRevision,
    signal?: AbortSignal,
    override?: string,
  ): Promise<DeploymentRuntimeConfig | undefined> {
    const name = override ?? revision.spec.runtimeConfigRef?.name ?? DEFAULT_RUNTIME_CONFIG;
    const path = `/apis/pkg.crossplane.io/v1beta1/deploymentruntimeconfigs/${name}`;
    const found = await getIfExists<DeploymentRuntimeConfig>(this.options.client, path, signal);
    if (found !== undefined || name !== DEFAULT_RUNTIME_CONFIG) {
      if (found === undefined) throw new Error(`cannot get DeploymentRuntimeConfig "${name}": not found`);
      return found;
    }
    const body = { ...RUNTIME_CONFIG, metadata: { name }, spec: {} };
    return serverSideApply<DeploymentRuntimeConfig>(this.options.client, path, body, {
      fieldManager: FIELD_MANAGER,
      signal,
    });
  }

  /**
   * Applies the revision's runtime and reports its health. The Service is pointed at this revision only once its
   * Deployment is available (or when there is no Service yet), so an older revision serves until then. `image` is
   * what the ImageConfigs make of the revision's image.
   */
  async ensure(revision: RuntimeRevision, signal?: AbortSignal, image?: RuntimeInput['image']): Promise<RuntimeResult> {
    const input = await this.input(revision, signal, image);
    const service = buildService(input);
    const leaf = await this.serverCertificate(input, signal);
    if (leaf !== undefined) input.serverCertDigest = certificateDigest(leaf);
    const health = await this.applyWorkload(input, signal);
    const existing = await getIfExists(this.options.client, pathOf(service), signal);
    if (health.healthy === true || existing === undefined) await this.apply(service, signal);
    return { endpoint: serviceEndpoint(service.metadata.name, input.namespace), health };
  }

  /**
   * What the revision's manifests are built from: its runtime config read (or the default one made), and what the
   * ImageConfigs make of its image.
   */
  async input(revision: RuntimeRevision, signal?: AbortSignal, image?: RuntimeInput['image']): Promise<RuntimeInput> {
    const runtimeConfig = await this.runtimeConfig(revision, signal, image?.runtimeConfig);
    return { revision, namespace: this.options.namespace, runtimeConfig, kind: this.kind, ...(image ? { image } : {}) };
  }

  /** Applies the revision's Service. */
  async applyService(input: RuntimeInput, signal?: AbortSignal): Promise<Manifest> {
    const service = buildService(input);
    await this.apply(service, signal);
    return service;
  }

  /**
   * The revision's server certificate Secret, named by spec.tlsServerSecretName (none without one), for its
   * Service's DNS names. Controlled by the active revision, as upstream's TLSServerSecret: it moves to the next one
   * on upgrade.
   */
  async serverCertificate(input: RuntimeInput, signal?: AbortSignal): Promise<TlsBundle | undefined> {
    const name = input.revision.spec.tlsServerSecretName;
    if (name === undefined) return undefined;
    const service = buildService(input);
    const dnsNames = dnsNamesForService(service.metadata.name, input.namespace);
    const owner = revisionOwner(input.revision, this.kind);
    return this.options.secrets.ensureLeaf({ name, dnsNames, usage: 'server', owner }, signal);
  }

  /**
   * The revision's client certificate Secret, named by spec.tlsClientSecretName (none without one), whose DNS name
   * is the revision's name as upstream's (runtime_provider.go); controlled by the active revision.
   */
  async clientCertificate(input: RuntimeInput, signal?: AbortSignal): Promise<TlsBundle | undefined> {
    const name = input.revision.spec.tlsClientSecretName;
    if (name === undefined) return undefined;
    const owner = revisionOwner(input.revision, this.kind);
    const dnsNames = [input.revision.metadata.name];
    return this.options.secrets.ensureLeaf({ name, dnsNames, usage: 'client', owner }, signal);
  }

  /**
   * Applies the ServiceAccount (only when the Deployment runs as it: a runtime config may name one managed
   * elsewhere) and the Deployment; the Deployment's health.
   */
  async applyWorkload(input: RuntimeInput, signal?: AbortSignal): Promise<RuntimeHealth> {
    const account = buildServiceAccount(input);
    const deployment = buildDeployment(input, account.metadata.name);
    const pod = (deployment.spec as { template: { spec: { serviceAccountName?: string } } }).template.spec;
    if (pod.serviceAccountName === account.metadata.name) await this.apply(account, signal);
    const applied = await this.apply<DeploymentStatus>(deployment, signal);
    return deploymentHealth(applied, this.kind.noun);
  }

  /** Deletes an inactive revision's Deployment; its Service and Secrets belong to the package and stay. */
  async deactivate(revision: RuntimeRevision, signal?: AbortSignal): Promise<void> {
    const input = { revision, namespace: this.options.namespace, runtimeConfig: undefined, kind: this.kind };
    const deployment = buildDeployment(input, revision.metadata.name);
    await this.options.client.request('DELETE', pathOf(deployment), { signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw new Error(`cannot delete ${this.kind.noun} package deployment`, { cause: err });
    });
  }

  /** Server-side applies one runtime object; a failure says which, as upstream's ("cannot apply provider package service"). */
  private async apply<T extends object = object>(manifest: Manifest, signal?: AbortSignal): Promise<T> {
    const options = { fieldManager: FIELD_MANAGER, signal };
    return serverSideApply<T>(this.options.client, pathOf(manifest), manifest, options).catch((err: unknown) => {
      const what = manifest.kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
      throw new Error(`cannot apply ${this.kind.noun} package ${what}`, { cause: err });
    });
  }
}

/** A short digest of a certificate, for the pod template annotation that rolls pods when it is renewed. */
export function certificateDigest(leaf: TlsBundle): string {
  return createHash('sha256').update(leaf.cert).digest('hex').slice(0, 16);
}
