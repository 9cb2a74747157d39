import { loadCrds } from '../apis/index.js';
import { createEngine } from '../engine/index.js';
import { loadKubeConfig } from '../kube/index.js';
import {
  createLogger,
  IdleHeapCompactor,
  LEASE_NAME,
  limitHeapGrowth,
  LeadershipLostError,
  Manager,
  shutdownSignal,
  StartupError,
  type Logger,
} from '../manager/index.js';
import type { Runnable } from '../lifecycle/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { warnIgnoredFlags } from './crossplaneOptions.js';
import { cacheTrimEnabled, kubeconfigSource } from './environment.js';
import type { StartConfig } from './flags.js';

export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The idle heap compactor, unless --idle-heap-compaction=false. */
export function heapCompaction(config: StartConfig, metrics: Metrics, log: Logger): Runnable[] {
  return config.idleHeapCompaction ? [new IdleHeapCompactor({ log, compactions: metrics.idleHeapCompactions })] : [];
}

/** `compositor start`: runs until SIGTERM/SIGINT. Exit 0 after a graceful stop, 1 when it cannot start. */
export async function runStart(config: StartConfig, output: Output): Promise<number> {
  const log = createLogger(config.logLevel);
  warnIgnoredFlags(config.ignoredFlags, log);
  limitHeapGrowth(config.heapGrowthPercent);
  const metrics = createMetrics();
  const manager = new Manager({
    config,
    log,
    metrics,
    kubeConfig: () => loadKubeConfig(kubeconfigSource(config.kubeconfig)),
    crds: () => loadCrds(),
    runnables: (client) => [
      createEngine({ client, config: { ...config, cacheTrim: cacheTrimEnabled() }, metrics, log }),
      ...heapCompaction(config, metrics, log),
    ],
    leaderElection: config.leaderElection
      ? {
          namespace: config.leaderElectionNamespace,
          name: leaseName(config),
          leaseDurationMs: config.leaderElectionLeaseDurationMs,
          renewDeadlineMs: config.leaderElectionRenewDeadlineMs,
          retryPeriodMs: config.leaderElectionRetryPeriodMs,
        }
      : undefined,
  });
  return runManager(manager, { signal: shutdownSignal(log), log, output });
}

/**
 * The Lease a process competes for. Sharded, each shard has its own (compositor-shard-<index>), so the replicas
 * started with one --shard-index are that shard's leader and standbys, and a standby takes over a dead holder's shard.
 */
export function leaseName(config: Pick<StartConfig, 'shardIndex' | 'shardCount'>): string {
  return config.shardCount > 1 ? `compositor-shard-${config.shardIndex}` : LEASE_NAME;
}

/** Runs a manager and turns a StartupError into one plain line on stderr and exit code 1. */
export async function runManager(
  manager: Manager,
  run: { signal: AbortSignal; log: Logger; output: Output; onStarted?: () => void },
): Promise<number> {
  const { signal, log, output, onStarted } = run;
  try {
    await manager.run(signal, onStarted);
    return 0;
  } catch (err) {
    if (err instanceof LeadershipLostError) {
      log.fatal({ error: err.message }, 'lost leadership');
      output.stderr(`compositor: lost leadership: ${err.message}\n`);
      return 1;
    }
    if (!(err instanceof StartupError)) throw err;
    log.fatal({ error: err.message }, 'cannot start');
    output.stderr(`compositor: cannot start: ${err.message}\n`);
    return 1;
  }
}
