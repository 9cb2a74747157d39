import type { KubeConfig } from '@kubernetes/client-node';
import type { CustomResourceDefinition } from '../apis/index.js';
import { errorMessage, type Clock } from '../base/index.js';
import { ClientRateLimiter, clientRateFor, ensureCrds, KubeClient, waitForApiServer } from '../kube/index.js';
import { deadlineAfter, type Runnable } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import { listen, type RunningServer } from './httpServer.js';
import { LeaderElector, type LeaderElectionOptions } from './leaderElection.js';
import type { Logger } from './logger.js';
import { Probes } from './probes.js';

/** The flags the manager itself uses; the CLI's full config satisfies it. */
export interface ManagerConfig {
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  installCrds: boolean;
  gracefulShutdownTimeoutMs: number;
  /** --max-reconcile-rate: the API client is limited to 5x this per second, burst 10x; unlimited when absent. */
  maxReconcileRate?: number;
}

export interface ManagerOptions {
  config: ManagerConfig;
  log: Logger;
  metrics: Metrics;
  /** Loads the kubeconfig; called in run() so a missing one becomes a StartupError, not a crash at import. */
  kubeConfig: () => KubeConfig;
  crds: () => Promise<CustomResourceDefinition[]>;
  /** Builds the controllers once the client exists. */
  runnables?: (client: KubeClient) => Runnable[];
  /** Bounded retry while waiting for the API server at start. */
  reachability?: { attempts: number; delayMs: number };
  crdTimeoutMs?: number;
  /**
   * Only the holder of this Lease starts the runnables; undefined runs them at once (--leader-election=false). `name`
   * is the Lease's name: compositor-leader-election by default, compositor-shard-<index> for a shard's replicas.
   */
  leaderElection?: {
    namespace: string;
    name?: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  /** Connects to the API server; by default from kubeConfig(), rate-limited, once it answers. Tests pass a fake. */
  connect?: (signal: AbortSignal) => Promise<KubeClient>;
  /** Builds the leader elector; a LeaderElector by default. Tests pass one that loses its lease on cue. */
  newElector?: (options: LeaderElectionOptions) => Elector;
  /** The clock of the shutdown deadline; the system clock by default. */
  clock?: Clock;
}

/** What the manager needs of a leader elector; LeaderElector is one. */
export type Elector = Pick<LeaderElector, 'isLeader' | 'acquire' | 'keepRenewing' | 'release'>;

/** This process stopped leading (it could not renew the lease); it stopped its controllers and must exit. */
export class LeadershipLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeadershipLostError';
  }
}

/** compositor could not start; the message is one line meant for a human, with no stack trace. */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}

const READY_CHECKS = { apiServer: 'apiserver', controllers: 'controllers-synced' } as const;

/**
 * Wires one compositor process: probes and metrics servers, the API connection, CRDs and the controllers, and a
 * graceful shutdown that stops readiness first, then work, then the servers.
 */
export class Manager {
  readonly probes = new Probes();
  private servers: RunningServer[] = [];
  private metricsServer: RunningServer | undefined;
  private probesServer: RunningServer | undefined;

  constructor(private readonly options: ManagerOptions) {}

  get metricsPort(): number | undefined {
    return this.metricsServer?.port;
  }

  get probesPort(): number | undefined {
    return this.probesServer?.port;
  }

  /** Runs until `signal` aborts, then shuts down gracefully. Rejects with StartupError if it cannot start. */
  async run(signal: AbortSignal, onStarted: () => void = () => undefined): Promise<void> {
    const { log } = this.options;
    this.probes.require(READY_CHECKS.apiServer);
    this.probes.require(READY_CHECKS.controllers);
    const runnables: Runnable[] = [];
    const lost = new AbortController();
    let elector: Elector | undefined;
    try {
      await this.startServers();
      const client = await (this.options.connect ? this.options.connect(signal) : this.connect(signal));
      if (this.options.config.installCrds) await this.installCrds(client, signal);
      elector = await this.lead(client, signal, lost);
      if (signal.aborted) return;
      runnables.push(...(this.options.runnables?.(client) ?? []));
      for (const runnable of runnables) {
        await runnable.start(signal);
        log.info({ runnable: runnable.name }, 'started');
      }
      this.probes.set(READY_CHECKS.controllers, true);
      log.info({ controllers: runnables.length }, 'compositor is ready');
      onStarted();
      await waitForAbort(AbortSignal.any([signal, lost.signal]));
      if (lost.signal.aborted) throw new LeadershipLostError(String(lost.signal.reason));
    } catch (err) {
      this.rethrowUnlessStopping(err, signal, lost.signal);
    } finally {
      await this.shutdown(runnables, this.stopDeadline(lost.signal.aborted));
      lost.abort('stopped');
      await elector?.release();
      await Promise.all(this.servers.map((server) => server.close()));
      this.servers = [];
    }
  }

  /**
   * A shutdown asked for while starting aborts the requests of what was starting: that is a stop, not a failure.
   * Anything else, or a lost lease, is rethrown.
   */
  private rethrowUnlessStopping(err: unknown, shutdown: AbortSignal, lost: AbortSignal): void {
    if (!shutdown.aborted || lost.aborted) throw err;
    this.options.log.info({ err: errorMessage(err) }, 'shutdown requested while starting');
  }

  /**
   * With leader election, waits until this process holds the lease (a standby counts as ready: it is healthy and
   * waiting) and keeps renewing it; `lost` aborts when a renewal deadline passes.
   */
  private async lead(client: KubeClient, signal: AbortSignal, lost: AbortController): Promise<Elector | undefined> {
    const settings = this.options.leaderElection;
    if (!settings) return undefined;
    const { log } = this.options;
    const newElector = this.options.newElector ?? ((options: LeaderElectionOptions) => new LeaderElector(options));
    const elector = newElector({ client, ...settings, log });
    await elector.acquire(signal, () => {
      this.probes.set(READY_CHECKS.controllers, true);
    });
    if (!elector.isLeader) return undefined;
    void elector.keepRenewing(AbortSignal.any([signal, lost.signal]), (why) => {
      log.error({ why }, 'lost the leader election lease; stopping controllers');
      lost.abort(why);
    });
    return elector;
  }

  private async startServers(): Promise<void> {
    const { config, metrics } = this.options;
    this.metricsServer = await listen(config.metricsBindAddress, (req, res) => {
      metrics.registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500);
          res.end(String(err));
        },
      );
    }).catch((err: unknown) => Promise.reject(new StartupError(`--metrics-bind-address: ${(err as Error).message}`)));
    this.probesServer = await listen(config.healthProbeBindAddress, this.probes.handle).catch((err: unknown) =>
      Promise.reject(new StartupError(`--health-probe-bind-address: ${(err as Error).message}`)),
    );
    this.servers = [this.metricsServer, this.probesServer].filter((s): s is RunningServer => s !== undefined);
  }

  private async connect(signal: AbortSignal): Promise<KubeClient> {
    let kubeConfig: KubeConfig;
    try {
      kubeConfig = this.options.kubeConfig();
    } catch (err) {
      throw new StartupError((err as Error).message, { cause: err });
    }
    const { metrics } = this.options;
    const rate = this.options.config.maxReconcileRate;
    const limiter = rate === undefined ? undefined : new ClientRateLimiter(clientRateFor(rate));
    const client = new KubeClient(
      kubeConfig,
      (method, code) => {
        metrics.restClientRequests.inc({ method, code });
      },
      limiter,
    );
    try {
      const version = await waitForApiServer(client, {
        ...(this.options.reachability ?? { attempts: 10, delayMs: 1000 }),
        signal,
      });
      this.options.log.info({ server: client.server, version: version.gitVersion }, 'connected to the API server');
    } catch (err) {
      throw new StartupError((err as Error).message, { cause: err });
    }
    this.probes.set(READY_CHECKS.apiServer, true);
    return client;
  }

  private async installCrds(client: KubeClient, signal: AbortSignal): Promise<void> {
    try {
      const created = await ensureCrds(client, await this.options.crds(), {
        timeoutMs: this.options.crdTimeoutMs ?? 60_000,
        signal,
      });
      if (created.length > 0) this.options.log.info({ crds: created }, 'installed CRDs');
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
      throw new StartupError(
        `cannot install CRDs (use --install-crds=false if they are managed elsewhere): ${(err as Error).message}${cause}`,
        {
          cause: err,
        },
      );
    }
  }

  /**
   * The one deadline of a shutdown, passed to every runnable and by each to every part below it: the graceful
   * timeout, or after a lost lease half the gap between lease duration and renew deadline. The lease is lost once
   * renewals failed for the renew deadline, so a standby may take over one gap later: every reconcile still in
   * flight is aborted well before that.
   */
  private stopDeadline(leaseLost: boolean): AbortSignal {
    const { config, leaderElection: election, clock } = this.options;
    const lostMs = election && leaseLost ? (election.leaseDurationMs - election.renewDeadlineMs) / 2 : Infinity;
    return deadlineAfter(Math.min(lostMs, config.gracefulShutdownTimeoutMs), clock);
  }

  private async shutdown(runnables: readonly Runnable[], deadline: AbortSignal): Promise<void> {
    const { log } = this.options;
    this.probes.set(READY_CHECKS.controllers, false);
    for (const runnable of [...runnables].reverse()) {
      try {
        await runnable.stop(deadline);
      } catch (err) {
        log.error({ err, runnable: runnable.name }, 'runnable did not stop cleanly');
      }
    }
    if (runnables.length > 0) log.info('stopped');
  }
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
  });
}
