import {
  ControllerShell,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
  type KindWatch,
} from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { objectKey } from '../watch/index.js';
import { UsageObjects } from './objects.js';
import { ensureUsagePolicy } from './policy.js';
import { UsageReconciler, type UsageTiming } from './reconciler.js';
import { USAGE_KINDS, type Usage } from './types.js';

export interface UsageControllerOptions extends ControllerContext {
  settings: UsageTiming &
    ControllerSettings & {
      /** Apply the admission policy and its binding at start (--install-crds; the chart renders them itself). */
      installPolicy: boolean;
    };
}

/** The controller label of its queue's metrics. */
export const USAGE_CONTROLLER_NAME = 'usage/usages.protection.crossplane.io';

/** A Usage's key: `<Kind>|<namespace/name>`, so both kinds share one queue. Nothing to do once one is gone. */
function usageWatch(kind: (typeof USAGE_KINDS)[number]): KindWatch {
  return watchKind<Usage>({
    kind,
    keys: (event) => (event.type === 'delete' ? [] : [`${kind.kind}|${objectKey(event.object)}`]),
  });
}

/**
 * Usages and ClusterUsages (protection.crossplane.io/v1beta1): one queue over both kinds' informers, keyed
 * `<Kind>|<namespace/name>`, running the UsageReconciler. At start it applies the ValidatingAdmissionPolicy that
 * refuses deleting an object in use, unless told the chart did.
 *
 * @example
 * const usages = new UsageController({ client, discovery, informers, events, metrics, logger, settings });
 * await usages.start();
 * await usages.stop(AbortSignal.timeout(30_000));
 */
export class UsageController implements Lifecycle {
  private readonly shell: ControllerShell;

  constructor(private readonly options: UsageControllerOptions) {
    const logger = options.logger.child({ controller: USAGE_CONTROLLER_NAME });
    const reconciler = new UsageReconciler({
      objects: new UsageObjects(options.client, options.discovery),
      find: (key) => this.find(key),
      all: () => USAGE_KINDS.flatMap((kind) => this.shell.store<Usage>(kind)?.list() ?? []),
      events: options.events,
      logger,
      timing: options.settings,
    });
    this.shell = new ControllerShell({
      ...options,
      name: USAGE_CONTROLLER_NAME,
      watches: USAGE_KINDS.map(usageWatch),
      reconcile: (key, signal) => reconciler.reconcile(key, signal),
      errors: { keyField: 'usage' },
    });
  }

  /** Applies the admission policy (when asked), watches both kinds and starts the workers once both are synced. */
  async start(signal?: AbortSignal): Promise<void> {
    const { options } = this;
    if (options.settings.installPolicy) await ensureUsagePolicy(options.client, options.discovery, signal);
    await this.shell.start(signal);
  }

  /** Stops taking work, waits for in-flight reconciles until `deadline` aborts, and releases the informers. */
  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  private find(key: string): Usage | undefined {
    const bar = key.indexOf('|');
    const kind = USAGE_KINDS.find((k) => k.kind === key.slice(0, bar));
    return kind && this.shell.store<Usage>(kind)?.get(key.slice(bar + 1));
  }
}
