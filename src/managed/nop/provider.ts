import type { Logger } from 'pino';
import { crdsDir, loadCrds } from '../../apis/index.js';
import { ensureCrds, KindNotServedError, type EventSink, type KubeClient } from '../../kube/index.js';
import type { Metrics } from '../../metrics/index.js';
import type { InformerRegistry } from '../../watch/index.js';
import { ManagedController, type ManagedControllerSettings } from '../controller.js';
import { NopConnector } from './connector.js';
import { NopExternalSystem } from './system.js';
import {
  NOP_API_VERSION,
  NOP_FEATURE,
  NOP_GROUP,
  NOP_KIND,
  NOP_PLURAL,
  NOP_PROVIDER,
  type NopResource,
} from './types.js';

const CRD_TIMEOUT_MS = 60_000;

export interface NopProviderOptions {
  client: KubeClient;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
  settings: ManagedControllerSettings;
  /** --install-crds: create the NopResource CRD when it is absent (an existing one is left alone). */
  installCrd: boolean;
  /** The pretend external system; a new, empty one by default. Pass one to restart against the same "cloud". */
  system?: NopExternalSystem;
  now?: () => Date;
}

/**
 * compositor's built-in nop provider (`compositor start --enable-nop-provider`): the NopResource CRD and its
 * managed controller, whose external system is in memory. It lets compositions be tested end to end without a
 * cloud, and shows a provider written against the managed runtime.
 *
 * @example
 * const nop = new NopProvider({ client, informers, events, metrics, logger, settings, installCrd: true });
 * await nop.start();
 * nop.system.get('default/my-nop'); // what the "external system" holds
 * await nop.stop(30_000);
 */
export class NopProvider {
  readonly name = 'nop-provider';
  readonly system: NopExternalSystem;
  readonly controller: ManagedController<NopResource>;

  constructor(private readonly options: NopProviderOptions) {
    this.system = options.system ?? new NopExternalSystem();
    const now = options.now ?? (() => new Date());
    this.controller = new ManagedController<NopResource>({
      type: { apiVersion: NOP_API_VERSION, kind: NOP_KIND, plural: NOP_PLURAL },
      provider: NOP_PROVIDER,
      connector: new NopConnector({ system: this.system, now: () => now().getTime() }),
      client: options.client,
      informers: options.informers,
      events: options.events,
      metrics: options.metrics,
      logger: options.logger,
      settings: options.settings,
      now,
    });
  }

  /** Installs the CRD when asked to, then starts the controller; resolves once its cache is synced. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.options.installCrd) {
      const crds = await loadCrds(crdsDir(), NOP_FEATURE);
      await ensureCrds(this.options.client, crds, { timeoutMs: CRD_TIMEOUT_MS, signal });
    }
    await this.controller.start().catch((err: unknown) => {
      if (!(err instanceof KindNotServedError)) throw err;
      throw new Error(
        `cannot start the nop provider: ${NOP_PLURAL}.${NOP_GROUP} is not served; install its CRD (src/apis/crds) or run with --install-crds`,
        { cause: err },
      );
    });
  }

  async stop(deadlineMs: number): Promise<void> {
    await this.controller.stop(deadlineMs);
  }
}
