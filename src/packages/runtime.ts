// One active revision's runtime: its runtime config (the `default` one created when absent), the server certificate
// Secret, ServiceAccount, Deployment and Service in compositor's namespace, and the Deployment's health.
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
import { FIELD_MANAGER, type TlsSecrets } from './secrets.js';
import type { DeploymentRuntimeConfig, FunctionRevision } from './types.js';

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

/** The Deployment's Available condition as upstream words it (runtime_function.go). */
export function deploymentHealth(deployment: DeploymentStatus | undefined): RuntimeHealth {
  const available = deployment?.status?.conditions?.find((c) => c.type === 'Available');
  if (available === undefined) {
    return { healthy: false, message: 'function package deployment has no condition of type "Available" yet' };
  }
  if (available.status === 'True') return { healthy: true };
  const why = [available.reason, available.message].filter((s) => s !== undefined && s !== '').join(': ');
  return { healthy: false, message: `function package deployment is unavailable with message: ${why}` };
}

export interface RuntimeOptions {
  client: KubeClient;
  namespace: string;
  secrets: TlsSecrets;
}

export class FunctionRuntime {
  constructor(private readonly options: RuntimeOptions) {}

  /**
   * The revision's DeploymentRuntimeConfig, or the one an ImageConfig names in its place; the `default` one is created
   * (empty) when absent, as upstream.
   */
  async runtimeConfig(
    revision: FunctionRevision,
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
  async ensure(
    revision: FunctionRevision,
    signal?: AbortSignal,
    image?: RuntimeInput['image'],
  ): Promise<RuntimeResult> {
    const { namespace, secrets } = this.options;
    const input: RuntimeInput = {
      revision,
      namespace,
      runtimeConfig: await this.runtimeConfig(revision, signal, image?.runtimeConfig),
      ...(image ? { image } : {}),
    };
    const service = buildService(input);
    const serverSecret = revision.spec.tlsServerSecretName;
    if (serverSecret !== undefined) {
      // Controlled by the active revision, as upstream's TLSServerSecret: it moves to the next one on upgrade.
      const sans = dnsNamesForService(service.metadata.name, namespace);
      const owner = revisionOwner(revision);
      const leaf = await secrets.ensureLeaf({ name: serverSecret, dnsNames: sans, usage: 'server', owner }, signal);
      input.serverCertDigest = createHash('sha256').update(leaf.cert).digest('hex').slice(0, 16);
    }
    const account = buildServiceAccount(input);
    const deployment = buildDeployment(input, account.metadata.name);
    const pod = (deployment.spec as { template: { spec: { serviceAccountName?: string } } }).template.spec;
    if (pod.serviceAccountName === account.metadata.name) await this.apply(account, signal);
    const applied = await this.apply<DeploymentStatus>(deployment, signal);
    const health = deploymentHealth(applied);
    const existing = await getIfExists(this.options.client, pathOf(service), signal);
    if (health.healthy === true || existing === undefined) await this.apply(service, signal);
    return { endpoint: serviceEndpoint(service.metadata.name, namespace), health };
  }

  /** Deletes an inactive revision's Deployment; its Service and Secret belong to the Function and stay. */
  async deactivate(revision: FunctionRevision, signal?: AbortSignal): Promise<void> {
    const input = { revision, namespace: this.options.namespace, runtimeConfig: undefined };
    const deployment = buildDeployment(input, revision.metadata.name);
    await this.options.client.request('DELETE', pathOf(deployment), { signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw new Error(`cannot delete function package deployment`, { cause: err });
    });
  }

  private apply<T extends object = object>(manifest: Manifest, signal?: AbortSignal): Promise<T> {
    return serverSideApply<T>(this.options.client, pathOf(manifest), manifest, { fieldManager: FIELD_MANAGER, signal });
  }
}
