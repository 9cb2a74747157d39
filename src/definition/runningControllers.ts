import type { Logger } from 'pino';
import type { XrdDefaults } from '../composite/index.js';
import type { XrType } from '../controller/index.js';
import { startOrRelease, type Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import {
  establishFailed,
  referenceableVersion,
  xrdScope,
  type CompositeResourceDefinition,
  type XrdWithConditions,
} from './xrd.js';

/** What the XRD controller needs of a composite or claim controller; CompositeController and ClaimController fit. */
export interface RunningComposite extends Lifecycle {
  readonly name: string;
}

export interface CompositeFactoryInput {
  name: string;
  xrType: XrType & { group: string };
  xrd: () => XrdDefaults;
  /** True once the cached XRD has a newer generation than the controller was started for: a restart is due. */
  stale: () => boolean;
}

export interface ClaimFactoryInput {
  name: string;
  claimType: { apiVersion: string; kind: string };
  xrType: XrType & { group: string };
}

type CachedXrd = XrdWithConditions & {
  metadata: CompositeResourceDefinition['metadata'] & { deletionTimestamp?: string };
};

export interface RunningControllersOptions {
  newComposite: (input: CompositeFactoryInput) => RunningComposite;
  /** The XRD as the informer caches it now, to tell when a running controller's restart is due. */
  cached: (key: string) => CachedXrd | undefined;
  metrics: Metrics;
  logger: Logger;
  /** How long a controller stopped for a changed or deleted XRD may finish its in-flight reconciles; default 30 s. */
  stopDeadlineMs?: number;
  /** Added to the log lines, to tell a shard follower's controllers from the XRD controller's. */
  role?: string;
}

/** One XRD's controllers while they run. */
export interface RunningEntry {
  readonly controller: RunningComposite;
  /** The claim controller, once the claim CRD is established (XRDs with spec.claimNames). */
  claim?: RunningComposite;
  /** The XRD generation the controller was started for; a change restarts it. */
  readonly generation: number | undefined;
  xrd: CompositeResourceDefinition;
}

/**
 * The composite controllers (and claim controllers) of the XRDs, one per XRD key: the one routine by which both
 * the XRD controller and a shard follower start, restart and stop them. A controller whose start fails is stopped at
 * once, so it releases the informer leases it took before failing (the caller's queue retries with backoff); one
 * whose start ends after `stopAll` began is stopped too, so nothing runs past its owner.
 *
 * @example
 * const controllers = new RunningControllers({ newComposite, cached, metrics, logger, stopDeadlineMs: 30_000 });
 * await controllers.startComposite('xapps.example.org', xrd, signal);
 * await controllers.stopAll(deadline);
 */
export class RunningControllers {
  private readonly entries = new Map<string, RunningEntry>();
  private stopping = false;

  constructor(private readonly options: RunningControllersOptions) {}

  get(key: string): RunningEntry | undefined {
    return this.entries.get(key);
  }

  /** Names of the composite controllers running now. */
  names(): string[] {
    return [...this.entries.values()].map((entry) => entry.controller.name);
  }

  /** Starts the XRD's composite controller, first stopping one that runs for an earlier generation. */
  async startComposite(key: string, xrd: CompositeResourceDefinition, signal: AbortSignal): Promise<void> {
    await this.stop(key, signal);
    const entry: RunningEntry = {
      xrd,
      generation: xrd.metadata.generation,
      controller: this.options.newComposite(
        compositeInputFor(
          xrd,
          () => entry.xrd,
          () => this.restartDue(key, entry),
        ),
      ),
    };
    await startOrRelease(entry.controller, signal);
    if (this.stopping) {
      await entry.controller.stop(AbortSignal.abort());
      return;
    }
    this.entries.set(key, entry);
    this.options.metrics.engine.controllersStarted.inc({ controller: entry.controller.name });
    this.options.logger.info({ controller: entry.controller.name }, this.line('started composite controller'));
  }

  /** Starts the claim controller of a running XRD unless it runs already. */
  async startClaim(key: string, newClaim: () => RunningComposite, signal: AbortSignal): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || entry.claim) return;
    const claim = newClaim();
    await startOrRelease(claim, signal);
    if (this.stopping || this.entries.get(key) !== entry) {
      await claim.stop(AbortSignal.abort());
      return;
    }
    entry.claim = claim;
    this.options.logger.info({ controller: claim.name }, 'started claim controller');
  }

  /** Stops the XRD's claim controller, if one runs; `signal` (a reconcile's) cuts the stop deadline short. */
  async stopClaim(key: string, signal: AbortSignal): Promise<void> {
    const entry = this.entries.get(key);
    const claim = entry?.claim;
    if (!entry || !claim) return;
    entry.claim = undefined;
    await claim.stop(this.stopDeadline(signal));
  }

  /** Stops the XRD's controllers, if they run; `signal` (a reconcile's) cuts the stop deadline short. */
  async stop(key: string, signal: AbortSignal): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const deadline = this.stopDeadline(signal);
    await entry.claim?.stop(deadline);
    await entry.controller.stop(deadline);
    this.options.metrics.engine.controllersStopped.inc({ controller: entry.controller.name });
    this.options.logger.info({ controller: entry.controller.name }, this.line('stopped composite controller'));
  }

  /** Stops every controller with the owner's deadline, claims first; controllers that start later stop at once. */
  async stopAll(deadline: AbortSignal): Promise<void> {
    this.stopping = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map(async (entry) => entry.claim?.stop(deadline)));
    await Promise.all(entries.map((entry) => entry.controller.stop(deadline)));
  }

  /**
   * The cached XRD moved to a generation the running controller was not started for, so its reconciles pause until
   * the restart. Deletion bumps the generation too, but then the old controller must keep running to finalize XRs;
   * and a generation the XRD controller reported it cannot establish (its CRD refused) brings no restart, so the
   * controller keeps reconciling on the last good one, as the CRD keeps serving it.
   */
  private restartDue(key: string, entry: RunningEntry): boolean {
    const cached = this.options.cached(key);
    if (!cached || cached.metadata.deletionTimestamp !== undefined) return false;
    return cached.metadata.generation !== entry.generation && !establishFailed(cached);
  }

  private stopDeadline(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(this.options.stopDeadlineMs ?? 30_000)]);
  }

  private line(text: string): string {
    return this.options.role ? `${text} (${this.options.role})` : text;
  }
}

/** The XR kind an XRD defines, at its referenceable version. */
export function typeOf(xrd: CompositeResourceDefinition): XrType & { group: string } {
  const version = referenceableVersion(xrd)?.name ?? '';
  const scope = xrdScope(xrd);
  return {
    apiVersion: `${xrd.spec.group}/${version}`,
    kind: xrd.spec.names.kind,
    group: xrd.spec.group,
    namespaced: scope === 'Namespaced',
    legacy: scope === 'LegacyCluster',
  };
}

/**
 * What an XRD's composite controller is built with: its name, the XR type, the XRD's current defaults and when a
 * restart is due.
 */
export function compositeInputFor(
  xrd: CompositeResourceDefinition,
  current: () => CompositeResourceDefinition,
  stale: () => boolean,
): CompositeFactoryInput {
  return {
    name: `composite/${xrd.spec.names.plural}.${xrd.spec.group}`,
    xrType: typeOf(xrd),
    xrd: () => defaultsOf(current()),
    stale,
  };
}

/** The composition defaults an XRD sets for its XRs, as the composite reconciler reads them. */
export function defaultsOf(xrd: CompositeResourceDefinition): XrdDefaults {
  const spec = xrd.spec as CompositeResourceDefinition['spec'] & XrdDefaults;
  return {
    enforcedCompositionRef: spec.enforcedCompositionRef,
    defaultCompositionRef: spec.defaultCompositionRef,
    defaultCompositionRevisionSelector: spec.defaultCompositionRevisionSelector,
    connectionSecretKeys: spec.connectionSecretKeys,
  };
}
