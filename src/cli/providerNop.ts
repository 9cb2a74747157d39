// `compositor provider nop`: the built-in nop provider run as the runtime of a provider-nop package, the process its
// ProviderRevision's Deployment runs. It reaches the API server as the pod's service account (the in-cluster
// configuration, or --kubeconfig), serves provider-nop's NopResources (nop.crossplane.io, whose CRD the package
// installed) and, with TLS_SERVER_CERTS_DIR mounted, provider-nop's validating webhook over HTTPS with that
// certificate. Metrics and probes are served as `compositor start` serves them; one replica, no leader election.
import { loadCrds } from '../apis/index.js';
import { loadKubeConfig, Discovery, EventRecorder, type KubeClient } from '../kube/index.js';
import type { Runnable } from '../lifecycle/index.js';
import { NopProvider, PROVIDER_NOP_TYPE, WebhookServer } from '../managed/index.js';
import { createLogger, Manager, shutdownSignal, splitAddress, type Logger } from '../manager/index.js';
import { createMetrics, type Metrics } from '../metrics/index.js';
import { ReconcileLimiter } from '../queue/index.js';
import { reconcileLimits } from '../base/index.js';
import { InformerRegistry } from '../watch/index.js';
import { kubeconfigSource, providerEnvironment, type ProviderEnvironment } from './environment.js';
import { runManager, type Output } from './start.js';

export interface ProviderNopOptions {
  kubeconfig?: string;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  /** Where webhooks are served when the server certificate is mounted. */
  webhookBindAddress: string;
  pollIntervalMs: number;
  logLevel: string;
}

/** provider-nop's validating webhook path (controller-runtime's, from its webhook configuration). */
export const NOP_VALIDATE_PATH = '/validate-nop-crossplane-io-v1alpha1-nopresource';
const SYNC_INTERVAL_MS = 60 * 60_000;
const GRACEFUL_SHUTDOWN_MS = 30_000;

/** The provider's parts on one API connection: informers, events, the NopResource controller, the webhook server. */
class NopProviderProcess implements Runnable {
  readonly name = 'provider-nop';
  private readonly informers: InformerRegistry;
  private readonly events: EventRecorder;
  private readonly provider: NopProvider;
  private readonly webhooks: WebhookServer | undefined;

  constructor(
    client: KubeClient,
    deps: { options: ProviderNopOptions; env: ProviderEnvironment; metrics: Metrics; log: Logger },
  ) {
    const { options, env, metrics, log } = deps;
    const discovery = new Discovery(client);
    this.informers = new InformerRegistry({
      client,
      kubeConfig: client.kubeConfig,
      discovery,
      logger: log,
      syncIntervalMs: SYNC_INTERVAL_MS,
    });
    this.events = new EventRecorder({ client, logger: log });
    this.provider = new NopProvider({
      client,
      informers: this.informers,
      events: this.events,
      metrics,
      logger: log,
      installCrd: false,
      types: [PROVIDER_NOP_TYPE],
      packageRuntime: true,
      settings: {
        pollIntervalMs: options.pollIntervalMs,
        minPollIntervalMs: 1_000,
        syncIntervalMs: SYNC_INTERVAL_MS,
        // provider-nop's CRD has no status.effectivePollInterval: compositor's own field is not written.
        writePollInterval: false,
        reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
        workers: 10,
      },
    });
    const address = splitAddress(options.webhookBindAddress);
    if (env.tlsServerCertsDir !== undefined && address !== undefined) {
      // provider-nop validates nothing: every NopResource is admitted.
      const checks = { [NOP_VALIDATE_PATH]: () => undefined };
      this.webhooks = new WebhookServer({ certDir: env.tlsServerCertsDir, ...address, checks });
    }
  }

  async start(signal: AbortSignal): Promise<void> {
    await this.webhooks?.start();
    await this.provider.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.provider.stop(deadline);
    await this.webhooks?.stop();
    await this.events.flush();
    await this.informers.stop();
  }
}

/** Runs until SIGTERM/SIGINT. Exit 0 after a graceful stop, 1 when it cannot start. */
export async function runProviderNop(options: ProviderNopOptions, output: Output): Promise<number> {
  const env = providerEnvironment();
  const log = createLogger(options.logLevel).child({
    provider: env.providerName ?? 'provider-nop',
    revision: env.revisionName,
    namespace: env.podNamespace,
  });
  if (env.tlsClientCertsDir !== undefined) log.info({ dir: env.tlsClientCertsDir }, 'TLS client certificate mounted');
  const metrics = createMetrics();
  const manager = new Manager({
    config: {
      metricsBindAddress: options.metricsBindAddress,
      healthProbeBindAddress: options.healthProbeBindAddress,
      installCrds: false,
      gracefulShutdownTimeoutMs: GRACEFUL_SHUTDOWN_MS,
    },
    log,
    metrics,
    kubeConfig: () => loadKubeConfig(kubeconfigSource(options.kubeconfig)),
    crds: () => loadCrds(),
    runnables: (client) => [new NopProviderProcess(client, { options, env, metrics, log })],
  });
  return runManager(manager, { signal: shutdownSignal(log), log, output });
}
