import { OwnWrites } from '../circuitbreaker/index.js';
import type { Clock } from '../base/index.js';
import {
  ControllerShell,
  effectivePollInterval,
  restartDelayMs,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
  type KeyRequest,
  type Keys,
} from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { objectKey, type WatchEvent } from '../watch/index.js';
import { ConnectionSecretPublisher } from './connectionSecret.js';
import { meteredConnector } from './metered.js';
import { ManagedReconciler, type ManagedTiming } from './reconciler.js';
import type { ExternalConnector, ManagedResource } from './types.js';
import { ManagedWriter } from './writer.js';

export type ManagedControllerSettings = ManagedTiming & ControllerSettings;

/** What a managed controller shares with the rest of the engine: it asks no discovery. */
export type ManagedContext = Omit<ControllerContext, 'discovery'>;

export interface ManagedControllerOptions<T extends ManagedResource> extends ManagedContext {
  /** The MR kind; the plural names the controller. */
  type: { apiVersion: string; kind: string; plural: string };
  /** The provider's name: the `provider` label of external_calls_total. */
  provider: string;
  connector: ExternalConnector<T>;
  settings: ManagedControllerSettings;
  /** --shard-index/--shard-count: whether this replica owns an MR; undefined owns every MR. */
  owns?: (mr: T) => boolean;
  clock?: Pick<Clock, 'now'>;
}

/** managed/<plural>.<group>, the controller label of its metrics (as composite/<plural>.<group> for XRs). */
export function managedControllerName(plural: string, apiVersion: string): string {
  return `managed/${plural}.${apiVersion.slice(0, apiVersion.indexOf('/'))}`;
}

/**
 * One MR kind's controller, declared on the kit's shell: the kind's shared informer feeds the queue (dedupe, per-item
 * backoff 1s..60s, the process's --max-reconcile-rate limiter, --max-concurrent-reconciles workers) that runs the
 * ManagedReconciler.
 * Watch events enqueue the MR, except the echoes of the reconciler's own writes. After a restart, settled MRs of
 * the first list are spread over their poll interval, as XRs are, while the others go at once.
 *
 * @example
 * const controller = new ManagedController({
 *   type: { apiVersion: 'storage.example.org/v1', kind: 'Bucket', plural: 'buckets' },
 *   provider: 'example', connector, client, informers, events, metrics, logger, settings,
 * });
 * await controller.start();
 * await controller.stop(AbortSignal.timeout(30_000));
 */
export class ManagedController<T extends ManagedResource = ManagedResource> implements Lifecycle {
  /** managed/<plural>.<group>. */
  readonly name: string;
  private readonly ownWrites = new OwnWrites();
  private readonly shell: ControllerShell;
  private reconciler: ManagedReconciler<T> | undefined;

  constructor(private readonly options: ManagedControllerOptions<T>) {
    const { type } = options;
    this.name = managedControllerName(type.plural, type.apiVersion);
    const logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      // The queue keeps the system clock: `clock` only dates what the reconciler writes.
      clock: undefined,
      name: this.name,
      watches: [watchKind<T>({ kind: type, keys: (event) => this.keysOf(event) })],
      reconcile: (key, signal) => {
        if (!this.reconciler) throw new Error('the managed controller is not started');
        return this.reconciler.reconcile(key, signal);
      },
      errors: { keyField: 'mr' },
      ready: () => {
        const lease = this.shell.lease<T>(type);
        this.reconciler = new ManagedReconciler<T>({
          connector: meteredConnector(options.connector, options.metrics, options.provider),
          store: lease.informer.store,
          writer: new ManagedWriter(options.client, lease.resource, this.ownWrites),
          secrets: new ConnectionSecretPublisher(options.client),
          events: options.events,
          timing: options.settings,
          logger,
          clock: options.clock,
        });
      },
    });
  }

  /** Keys queued, reconciling, waiting: for diagnostics and tests. */
  stats(): ReturnType<ControllerShell['stats']> {
    return this.shell.stats();
  }

  /** Watches the MR kind and starts the workers; resolves once the cache is synced. */
  start(signal?: AbortSignal): Promise<void> {
    return this.shell.start(signal);
  }

  /** Stops taking work, waits for in-flight reconciles until `deadline` aborts, and releases the informer. */
  stop(deadline: AbortSignal): Promise<void> {
    return this.shell.stop(deadline);
  }

  /**
   * Another shard's MRs are another replica's: their events are dropped here, before any state is kept. An MR's
   * delete forgets it; the MRs of the first list are spread (initialRequest); a resync is due whoever wrote last (the
   * reconciler's skip rule keeps it from the external system); any other change goes unless it is our own echo.
   */
  private keysOf(event: WatchEvent<T>): Keys {
    const { object } = event;
    if (this.options.owns?.(object) === false) return [];
    const key = objectKey(object);
    if (event.type === 'delete') {
      this.ownWrites.forget(object);
      this.reconciler?.forget(key);
      return [];
    }
    if (event.type === 'add' && event.initial === true) return [this.initialRequest(object)];
    if (event.type === 'resync') return [key];
    // The API server often sends a write's event before its response: judge it once the write has settled.
    const pending = this.ownWrites.pending(object);
    if (!pending) return this.unlessEcho(key, object);
    return pending.then(() => this.unlessEcho(key, object));
  }

  /** An echo shows exactly what the reconciler wrote: nothing to do. */
  private unlessEcho(key: string, object: T): KeyRequest[] {
    return this.ownWrites.isEcho(object) ? [] : [key];
  }

  /** Settled MRs of the first list wait a spread-out while (see restartDelayMs); the others go now. */
  private initialRequest(object: T): KeyRequest {
    const key = objectKey(object);
    const pollMs = effectivePollInterval(object.metadata.annotations, this.options.settings).ms;
    const afterMs = restartDelayMs(object, pollMs);
    return afterMs === undefined ? key : { key, afterMs };
  }
}
