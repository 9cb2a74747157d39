// The Configuration half of the package manager as one engine part: the OCI client with its cache, the
// Configuration and ConfigurationRevision controllers sharing it, the Lock's resolver, which installs the
// dependencies of every kind of package (Providers only with --enable-providers), and the departures of deleted
// revisions of every kind from the Lock.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../base/index.js';
import type { ControllerContext, ControllerSettings } from '../../controller/index.js';
import { startInOrder, stopInReverse, type Lifecycle } from '../../lifecycle/index.js';
import { ImageConfigStore } from '../imageconfig/index.js';
import { tagListing } from '../lock/credentials.js';
import { RevisionDepartures } from '../lock/departures.js';
import { LockManager } from '../lock/manager.js';
import { LockResolver } from '../lock/resolverController.js';
import { Puller, type Fetch } from '../oci/index.js';
import { PackageClient } from '../xpkg/index.js';
import { ConfigurationController } from './configurationController.js';
import { ConfigurationRevisionController } from './revisionController.js';

export interface ConfigurationPackagesOptions extends ControllerContext {
  settings: ControllerSettings;
  /** compositor's namespace: where packagePullSecrets are read. */
  namespace: string;
  /** --xpkg-cache-dir; `compositor-xpkg-cache` under the system's temporary directory by default. */
  cacheDir?: string;
  /** The fetch of registry requests; the global fetch unless given. */
  fetch?: Fetch;
  /** The Crossplane version packages are checked against. */
  crossplaneVersion?: string;
  /** Whether the resolver installs Provider dependencies (--enable-providers). */
  providers?: boolean;
  /** Whether the resolver moves installed dependencies (--enable-dependency-version-upgrades). */
  upgrades?: boolean;
  /** Whether it may move them to lower versions (--enable-dependency-version-downgrades). */
  downgrades?: boolean;
  clock?: Clock;
}

export class ConfigurationPackages implements Lifecycle {
  readonly name = 'packages/configurations';
  private readonly parts: readonly Lifecycle[];

  constructor(options: ConfigurationPackagesOptions) {
    const puller = new Puller({
      cacheDir: options.cacheDir ?? defaultCacheDir(),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const packages = new PackageClient({ puller });
    const dependencies = new LockManager(options.client);
    this.parts = [
      new ConfigurationRevisionController({ ...options, packages, dependencies }),
      new ConfigurationController({ ...options, packages }),
      new LockResolver({
        ...options,
        providers: options.providers ?? false,
        upgrades: options.upgrades ?? false,
        downgrades: options.downgrades ?? false,
        tags: async (source, parents, signal) => {
          // Listed from the API server: a listing is rare (a missing dependency), and the resolver holds no cache.
          const imageConfigs = new ImageConfigStore({ client: options.client });
          const listing = await tagListing({ ...options, imageConfigs }, source, parents, signal);
          return puller.tags(listing.source, { credentials: listing.credentials, signal });
        },
      }),
      new RevisionDepartures({
        ...options,
        dependencies,
        types: options.providers === true ? ['Configuration', 'Function', 'Provider'] : ['Configuration', 'Function'],
      }),
    ];
  }

  async start(signal: AbortSignal): Promise<void> {
    await startInOrder(this.parts, signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await stopInReverse(this.parts, deadline);
  }
}

export function defaultCacheDir(): string {
  return join(tmpdir(), 'compositor-xpkg-cache');
}
