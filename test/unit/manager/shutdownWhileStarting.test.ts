import { expect } from 'chai';
import pino from 'pino';
import type { KubeClient } from '../../../src/kube/index.js';
import type { Runnable } from '../../../src/lifecycle/index.js';
import { Manager } from '../../../src/manager/index.js';
import { createMetrics } from '../../../src/metrics/index.js';

// A SIGTERM may arrive while the controllers are still starting (a standby that has just become leader, say): what
// was starting fails its requests with the signal's reason. That is a stop, and the process must exit cleanly.

/** A runnable whose start waits on the API server until the signal aborts it, as a request would. */
class StartingRunnable implements Runnable {
  readonly name = 'starting';
  stopped = false;
  started: () => void = () => undefined;
  readonly inStart = new Promise<void>((resolve) => (this.started = resolve));

  constructor(private readonly failWith?: Error) {}

  start(signal: AbortSignal): Promise<void> {
    this.started();
    if (this.failWith) return Promise.reject(this.failWith);
    return new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => {
        reject(signal.reason as Error);
      });
    });
  }

  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }
}

function manager(runnable: Runnable): Manager {
  const log = pino({ level: 'silent' });
  return new Manager({
    config: {
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      installCrds: false,
      gracefulShutdownTimeoutMs: 1_000,
    },
    log,
    metrics: createMetrics({ processMetrics: false }),
    kubeConfig: () => {
      throw new Error('not used: connect is given');
    },
    crds: () => Promise.resolve([]),
    connect: () => Promise.resolve({} as KubeClient),
    runnables: () => [runnable],
  });
}

describe('manager/a shutdown while starting', () => {
  it('stops what was starting and resolves: a signal during start is no failure', async () => {
    const runnable = new StartingRunnable();
    const shutdown = new AbortController();
    const run = manager(runnable).run(shutdown.signal);
    await runnable.inStart;
    shutdown.abort(new Error('received SIGTERM'));
    await run;
    expect(runnable.stopped).to.equal(true);
  });

  it('still rejects when a start fails without a shutdown asked for', async () => {
    const runnable = new StartingRunnable(new Error('cannot list XRDs'));
    const err = await manager(runnable)
      .run(new AbortController().signal)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error | undefined)?.message).to.equal('cannot list XRDs');
  });
});
