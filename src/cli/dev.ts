import { resolve } from 'node:path';
import type { DestinationStream } from 'pino';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { loadCrds } from '../apis/index.js';
import { createEngine } from '../engine/index.js';
import { createLogger, Manager, shutdownSignal, type Logger } from '../manager/index.js';
import { createMetrics } from '../metrics/index.js';
import { warnIgnoredFlags } from './crossplaneOptions.js';
import { readyBanner } from './devBanner.js';
import { DevNamespace } from './devNamespace.js';
import { devAddresses } from './devPorts.js';
import { ExampleReadiness, readThrough } from './exampleReadiness.js';
import { ExampleApplier } from './examples.js';
import type { DevOptions } from './program.js';
import { heapCompaction, runManager, type Output } from './start.js';

/** What `compositor dev` needs of a control plane; ControlPlane is one. */
export type DevPlane = Pick<ControlPlane, 'server' | 'kubeconfigPath' | 'kubeConfig' | 'stop'>;

/** What runDev takes from outside; each has a working default. Tests pass a running control plane and a signal. */
export interface DevDeps {
  /** Starts the control plane; a new local one (built and cached on first use) by default. */
  startPlane: (log: Logger) => Promise<DevPlane>;
  /** Stops dev when it aborts; SIGTERM or SIGINT by default. */
  signal?: AbortSignal;
  /** Where the JSON log goes; stdout by default. */
  logDestination?: DestinationStream;
  /** How long to wait for the examples to become Ready before saying which are not; 2 minutes by default. */
  examplesTimeoutMs?: number;
}

const DEFAULT_DEPS: DevDeps = {
  startPlane: (log) =>
    ControlPlane.start({
      log: (line) => {
        log.info(line);
      },
    }),
};

/**
 * `compositor dev`: a local control plane (built and cached on first use), compositor's CRDs and namespace, the
 * examples, and compositor itself, until Ctrl-C tears everything down. On stderr, for a person: a banner once
 * compositor is ready, and one line once the examples are Ready (or which are not, and why, after a deadline).
 */
export async function runDev(options: DevOptions, output: Output, deps: DevDeps = DEFAULT_DEPS): Promise<number> {
  const { config } = options;
  const log = createLogger(config.logLevel, deps.logDestination);
  warnIgnoredFlags(config.ignoredFlags, log);
  const signal = deps.signal ?? shutdownSignal(log);
  output.stderr(
    'compositor dev: starting a local control plane (the first run builds it from Go modules; this takes minutes)\n',
  );
  let plane: DevPlane;
  try {
    plane = await deps.startPlane(log);
  } catch (err) {
    // The full message (with the server's log) goes to the JSON log; the terminal gets its first line.
    const message = (err as Error).message;
    log.fatal({ error: message }, 'cannot start the local control plane');
    output.stderr(`compositor dev: cannot start the local control plane: ${message.split('\n')[0] ?? ''}\n`);
    return 1;
  }
  try {
    if (signal.aborted) return 0;
    return await runCompositor(options, { plane, log, signal, output, deps });
  } finally {
    await plane.stop();
    log.info('control plane stopped');
  }
}

interface Running {
  plane: DevPlane;
  log: Logger;
  signal: AbortSignal;
  output: Output;
  deps: DevDeps;
}

async function runCompositor(options: DevOptions, running: Running): Promise<number> {
  const { plane, log, signal, output, deps } = running;
  const { config } = options;
  const dirs = options.examplesDirs.map((dir) => resolve(dir));
  // Chosen just before the manager listens, so that little time passes between finding a port free and using it.
  const addresses = await devAddresses(config, output.stderr);
  const metrics = createMetrics();
  // The examples' line waits for the banner, so that it always reads below it.
  const ready = Promise.withResolvers<undefined>();
  const manager = new Manager({
    config: { ...config, ...addresses, installCrds: true },
    log,
    metrics,
    kubeConfig: () => plane.kubeConfig,
    crds: () => loadCrds(),
    runnables: (client) => {
      const applier = new ExampleApplier(client, dirs, log);
      return [
        // First: the manager starts its runnables in order, and the engine keeps its Secrets in this namespace.
        new DevNamespace(client, config.leaderElectionNamespace),
        createEngine({ client, config, metrics, log }),
        applier,
        new ExampleReadiness({
          dirs,
          read: readThrough(client),
          applyProblem: (object) => applier.problem(object),
          timeoutMs: deps.examplesTimeoutMs,
          report: (text) => {
            void ready.promise.then(() => {
              output.stderr(`compositor dev: ${text}`);
            });
          },
        }),
        ...heapCompaction(config, metrics, log),
      ];
    },
  });
  return runManager(manager, {
    signal,
    log,
    output,
    onStarted: () => {
      output.stderr(readyBanner(plane));
      ready.resolve(undefined);
    },
  });
}
