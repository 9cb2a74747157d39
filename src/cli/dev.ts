import { resolve } from 'node:path';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { loadCrds } from '../apis/index.js';
import { createEngine } from '../engine/index.js';
import { createLogger, Manager, shutdownSignal } from '../manager/index.js';
import { createMetrics } from '../metrics/index.js';
import { warnIgnoredFlags } from './crossplaneOptions.js';
import { devAddresses } from './devPorts.js';
import { ExampleApplier } from './examples.js';
import type { DevOptions } from './program.js';
import { heapCompaction, runManager, type Output } from './start.js';

/**
 * `compositor dev`: a local control plane (built and cached on first use), compositor's CRDs, the examples, and
 * compositor itself, until Ctrl-C tears everything down.
 */
export async function runDev(options: DevOptions, output: Output): Promise<number> {
  const { config } = options;
  const log = createLogger(config.logLevel);
  warnIgnoredFlags(config.ignoredFlags, log);
  const signal = shutdownSignal(log);
  output.stderr(
    'compositor dev: starting a local control plane (the first run builds it from Go modules; this takes minutes)\n',
  );
  let plane: ControlPlane;
  try {
    plane = await ControlPlane.start({
      log: (line) => {
        log.info(line);
      },
    });
  } catch (err) {
    // The full message (with the server's log) goes to the JSON log; the terminal gets its first line.
    const message = (err as Error).message;
    log.fatal({ error: message }, 'cannot start the local control plane');
    output.stderr(`compositor dev: cannot start the local control plane: ${message.split('\n')[0] ?? ''}\n`);
    return 1;
  }
  try {
    if (signal.aborted) return 0;
    // Chosen just before the manager listens, so that little time passes between finding a port free and using it.
    const addresses = await devAddresses(config, output.stderr);
    const metrics = createMetrics();
    const manager = new Manager({
      config: { ...config, ...addresses, installCrds: true },
      log,
      metrics,
      kubeConfig: () => plane.kubeConfig,
      crds: () => loadCrds(),
      runnables: (client) => [
        createEngine({ client, config, metrics, log }),
        new ExampleApplier(
          client,
          options.examplesDirs.map((dir) => resolve(dir)),
          log,
        ),
        ...heapCompaction(config, metrics, log),
      ],
    });
    return await runManager(manager, {
      signal,
      log,
      output,
      onStarted: () => {
        output.stderr(
          [
            '',
            `compositor dev: the control plane is up at ${plane.server}`,
            `  kubeconfig: ${plane.kubeconfigPath}`,
            `  try:        kubectl --kubeconfig ${plane.kubeconfigPath} get crds`,
            '  Ctrl-C stops compositor and the control plane.',
            '',
          ].join('\n'),
        );
      },
    });
  } finally {
    await plane.stop();
    log.info('control plane stopped');
  }
}
