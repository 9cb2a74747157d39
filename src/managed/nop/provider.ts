import type { Logger } from 'pino';
import { crdsDir, loadCrds, type CustomResourceDefinition } from '../../apis/index.js';
import { systemClock, type Clock } from '../../base/index.js';
import { ensureCrds, getIfExists, KindNotServedError } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import { ManagedController, type ManagedContext, type ManagedControllerSettings } from '../controller.js';
import { NopConnector } from './connector.js';
import { crossplanePackageOwner } from './packageOwner.js';
import { NopExternalSystem } from './system.js';
import { NOP_FEATURE, NOP_PROVIDER, NOP_TYPES, nopCrdName, type NopResource, type NopType } from './types.js';

const CRD_TIMEOUT_MS = 60_000;
const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export interface NopProviderOptions extends ManagedContext {
  settings: ManagedControllerSettings;
  /** --install-crds: create the NopResource CRDs that are absent (existing ones are left alone). */
  installCrd: boolean;
  /** The pretend external system; a new, empty one by default. Pass one to restart against the same "cloud". */
  system?: NopExternalSystem;
  /** --shard-index/--shard-count: whether this replica owns an MR (of either kind); undefined owns every MR. */
  owns?: (mr: NopResource) => boolean;
  clock?: Pick<Clock, 'now'>;
  /** The kinds served; every one of NOP_TYPES by default. A Provider package's runtime serves provider-nop's alone. */
  types?: readonly NopType[];
  /**
   * Run as the runtime of a Provider package (`compositor provider nop`): the package installs the CRDs, so a kind
   * whose CRD a package owns is served rather than left to it. False by default.
   */
  packageRuntime?: boolean;
}

/**
 * compositor's built-in nop provider (`compositor start --enable-nop-provider`): the NopResource CRDs and one
 * managed controller per kind in NOP_TYPES (compositor's namespaced nop.compositor.crossplane.io and provider-nop's
 * cluster-scoped nop.crossplane.io), sharing one in-memory external system. It lets compositions be tested end to
 * end without a cloud, and shows a provider written against the managed runtime. A kind whose CRD a Crossplane
 * package owns (the real provider-nop is installed) is left to that provider: two controllers would fight over it.
 *
 * @example
 * const nop = new NopProvider({ client, informers, events, metrics, logger, settings, installCrd: true });
 * await nop.start();
 * nop.system.get('default/my-nop'); // what the "external system" holds; '/my-nop' for a cluster-scoped one
 * await nop.stop(AbortSignal.timeout(30_000));
 */
export class NopProvider implements Lifecycle {
  readonly name = 'nop-provider';
  readonly system: NopExternalSystem;
  /** One per kind, in NOP_TYPES order, whether started or not. */
  readonly controllers: readonly ManagedController<NopResource>[];
  private readonly logger: Logger;
  private running: ManagedController<NopResource>[] = [];

  constructor(private readonly options: NopProviderOptions) {
    this.system = options.system ?? new NopExternalSystem();
    // Not "component": the root logger binds that key to "compositor" already, and pino would repeat it.
    this.logger = options.logger.child({ provider: this.name });
    const clock = options.clock ?? systemClock;
    // One connector for every kind: the external system tells them apart by namespace ("" for cluster scope).
    const connector = new NopConnector({ system: this.system, clock });
    this.controllers = this.types().map(
      (type) =>
        new ManagedController<NopResource>({
          type: { apiVersion: type.apiVersion, kind: type.kind, plural: type.plural },
          provider: NOP_PROVIDER,
          connector,
          ...options,
          clock,
        }),
    );
  }

  private types(): readonly NopType[] {
    return this.options.types ?? NOP_TYPES;
  }

  /** The controllers started, for diagnostics and tests: a kind left to a Crossplane package has none. */
  started(): readonly ManagedController<NopResource>[] {
    return [...this.running];
  }

  /** Installs the CRDs when asked to, then starts a controller per kind; resolves once their caches are synced. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.options.installCrd) {
      const crds = await loadCrds(crdsDir(), NOP_FEATURE);
      await ensureCrds(this.options.client, crds, { timeoutMs: CRD_TIMEOUT_MS, signal });
    }
    for (const [index, type] of this.types().entries()) {
      const controller = this.controllers[index];
      if (!controller) continue;
      if (this.options.packageRuntime !== true && (await this.servedByPackage(type, signal))) continue;
      await controller.start().catch((err: unknown) => {
        if (!(err instanceof KindNotServedError)) throw err;
        throw new Error(
          `cannot start the nop provider: ${nopCrdName(type)} is not served; install its CRD (src/apis/crds) or run with --install-crds`,
          { cause: err },
        );
      });
      this.running.push(controller);
    }
  }

  async stop(deadline: AbortSignal): Promise<void> {
    const running = this.running;
    this.running = [];
    await Promise.all(running.map((controller) => controller.stop(deadline)));
  }

  /** True, with a warning, when a Crossplane package (the real provider-nop) owns the kind's CRD. */
  private async servedByPackage(type: NopType, signal: AbortSignal | undefined): Promise<boolean> {
    const name = nopCrdName(type);
    const crd = await getIfExists<CustomResourceDefinition>(this.options.client, `${CRDS_PATH}/${name}`, signal);
    const owner = crd && crossplanePackageOwner(crd);
    if (!owner) return false;
    this.logger.warn(
      { crd: name, owner: `${owner.kind}/${owner.name}` },
      'a Crossplane package serves this NopResource kind; the built-in nop provider leaves it to that provider',
    );
    return true;
  }
}
