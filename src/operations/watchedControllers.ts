// The Watches of a running process: per WatchOperation, a controller on the kit holding a lease on the shared
// informer of the watched kind, whose events pass watchDecision.triggers into the queue of a WatchedReconciler that
// reads the watched objects from that informer's cache (upstream's per-WatchOperation "watched" controller).
import type { OwnWrites } from '../circuitbreaker/index.js';
import {
  ControllerShell,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
  type Keys,
} from '../controller/index.js';
import { objectKey, type InformerRegistry } from '../watch/index.js';
import type { OpsStore } from './store.js';
import type { WatchedObject, WatchOperation, WatchSpec } from './types.js';
import { selects, triggers, type WatchedEvent } from './watchDecision.js';
import { WatchedReconciler } from './watchedReconciler.js';
import type { Watches } from './watchOperationReconciler.js';

export interface WatchedControllersOptions extends Pick<ControllerContext, 'events' | 'metrics' | 'logger'> {
  informers: Pick<InformerRegistry, 'acquire'>;
  settings: ControllerSettings;
  store: OpsStore;
  /** What Operations applied: their echoes start no Operation. */
  ownWrites: Pick<OwnWrites, 'isEcho' | 'pending'>;
  /** How long a watch being stopped may finish its reconciles in flight. */
  stopDeadlineMs: number;
}

/** The controller label of one WatchOperation's watched-resource queue. */
export function watchedControllerName(watchOperation: string): string {
  return `watched/${watchOperation}`;
}

interface Running {
  /** The watch it was started for: a changed spec.watch starts a new one. */
  spec: string;
  watch: WatchSpec;
  shell: ControllerShell;
}

export class WatchedControllers implements Watches {
  private readonly running = new Map<string, Running>();

  constructor(private readonly options: WatchedControllersOptions) {}

  async ensure(wo: WatchOperation, signal: AbortSignal): Promise<void> {
    const name = wo.metadata.name;
    const spec = JSON.stringify(wo.spec.watch);
    if (this.running.get(name)?.spec === spec) return;
    await this.stop(name);
    const shell = this.shellOf(name, wo.spec.watch);
    this.running.set(name, { spec, watch: wo.spec.watch, shell });
    try {
      await shell.start(signal);
    } catch (err) {
      this.running.delete(name);
      await shell.stop(AbortSignal.timeout(this.options.stopDeadlineMs));
      throw err;
    }
  }

  async stop(name: string): Promise<void> {
    const running = this.running.get(name);
    if (!running) return;
    this.running.delete(name);
    await running.shell.stop(AbortSignal.timeout(this.options.stopDeadlineMs));
  }

  count(wo: WatchOperation): number | undefined {
    const running = this.running.get(wo.metadata.name);
    const objects = running?.shell.store(kindOf(running.watch))?.list();
    return objects?.filter((object) => selects(wo.spec.watch, object)).length;
  }

  /** Stops every watch: the WatchOperation controller is stopping. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.stop(name)));
  }

  private shellOf(name: string, watch: WatchSpec): ControllerShell {
    const { options } = this;
    const kind = kindOf(watch);
    const isEcho = (object: WatchedObject): boolean => options.ownWrites.isEcho(object);
    // The API server often sends a write's event before its response: an event about an object an Operation is
    // writing is judged once that write settled, when its result is known.
    const keys = (event: WatchedEvent): Keys => {
      const judge = (): string[] => (triggers(watch, event, isEcho) ? [objectKey(event.object)] : []);
      const pending = options.ownWrites.pending(event.object);
      return pending ? pending.then(judge) : judge();
    };
    const reconciler = new WatchedReconciler({
      store: options.store,
      events: options.events,
      watchOperation: name,
      watched: (key) => shell.store(kind)?.get(key),
    });
    const shell: ControllerShell = new ControllerShell({
      ...options,
      name: watchedControllerName(name),
      watches: [
        watchKind({
          kind,
          keys: (event) => keys(event as unknown as WatchedEvent),
        }),
      ],
      reconcile: (key, signal) => reconciler.reconcile(key, signal),
      errors: { keyField: 'resource' },
    });
    return shell;
  }
}

function kindOf(watch: WatchSpec): { apiVersion: string; kind: string } {
  return { apiVersion: watch.apiVersion, kind: watch.kind };
}
