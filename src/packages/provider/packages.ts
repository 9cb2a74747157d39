// The Provider half of the package manager as one engine part (--enable-providers): the Provider and ProviderRevision
// controllers on the Configuration controllers generalised by kind, the revision's runtime (runtime.ts) when given
// compositor's TLS Secrets, the MRD and MRAP controllers, the default activation policy, created before the MRAP
// controller starts so its first pass sees it, and (--manage-provider-rbac) the RBAC manager's roles and binding of
// each ProviderRevision.
import type { Clock } from '../../base/index.js';
import type { ControllerContext, ControllerSettings } from '../../controller/index.js';
import { startInOrder, stopInReverse, type Lifecycle } from '../../lifecycle/index.js';
import { ConfigurationController, ConfigurationRevisionController, defaultCacheDir } from '../configuration/index.js';
import { LockManager } from '../lock/index.js';
import { Puller, type Fetch } from '../oci/index.js';
import { ProviderRbacController } from '../rbac/index.js';
import type { TlsSecrets } from '../secrets.js';
import { PackageClient } from '../xpkg/index.js';
import { DefaultActivationPolicy } from './defaultPolicy.js';
import { PROVIDER_KIND } from './kind.js';
import { MrapController } from './mrapController.js';
import { MrdController } from './mrdController.js';
import { ProviderRuntime } from './runtime.js';

export interface ProviderPackagesOptions extends ControllerContext {
  settings: ControllerSettings;
  /** compositor's namespace: where packagePullSecrets are read. */
  namespace: string;
  /** --xpkg-cache-dir, the Configurations' cache too; `compositor-xpkg-cache` in the temporary directory by default. */
  cacheDir?: string;
  /** The fetch of registry requests; the global fetch unless given. */
  fetch?: Fetch;
  /** --default-activations: the patterns of the "default" activation policy; none creates no policy. */
  defaultActivations: readonly string[];
  /** --manage-provider-rbac: each revision's ClusterRoles and binding, as Crossplane's RBAC manager (default on). */
  manageRbac?: boolean;
  crossplaneVersion?: string;
  clock?: Clock;
  /**
   * compositor's CA and TLS Secrets (shared with the Function runtime): with them each active ProviderRevision runs
   * its Deployment, Service, ServiceAccount and certificates in `namespace`. Without them no runtime runs.
   */
  secrets?: TlsSecrets;
  /** Between looks at a provider runtime that is not healthy yet. Default 5s. */
  runtimePollMs?: number;
}

export class ProviderPackages implements Lifecycle {
  readonly name = 'packages/providers';
  private readonly parts: readonly Lifecycle[];

  constructor(options: ProviderPackagesOptions) {
    const kind = PROVIDER_KIND;
    const puller = new Puller({
      cacheDir: options.cacheDir ?? defaultCacheDir(),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const packages = new PackageClient({ puller });
    this.parts = [
      new MrdController(options),
      new DefaultActivationPolicy({ client: options.client, activations: options.defaultActivations }),
      new MrapController(options),
      ...(options.manageRbac === false ? [] : [new ProviderRbacController(options)]),
      new ConfigurationRevisionController({
        ...options,
        packages,
        kind,
        dependencies: new LockManager(options.client),
        ...(options.secrets ? { runtime: new ProviderRuntime({ ...options, secrets: options.secrets }) } : {}),
      }),
      new ConfigurationController({ ...options, packages, kind }),
    ];
  }

  async start(signal: AbortSignal): Promise<void> {
    await startInOrder(this.parts, signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await stopInReverse(this.parts, deadline);
  }
}
