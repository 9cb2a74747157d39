import pino from 'pino';
import type { KubeConfig } from '@kubernetes/client-node';
import { Discovery, EventRecorder, KubeClient, type KubeObject } from '../../src/kube/index.js';
import {
  NOP_API_VERSION,
  NOP_KIND,
  NopExternalSystem,
  NopProvider,
  PROVIDER_NOP_API_VERSION,
  type ManagedControllerSettings,
  type NopParameters,
  type NopResource,
} from '../../src/managed/index.js';
import { createMetrics, type Metrics } from '../../src/metrics/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
import { reconcileLimits } from '../../src/base/index.js';
import { ReconcileLimiter } from '../../src/queue/index.js';

// Runs the nop provider in-process against a control plane (the integration tests' and the managed-restart
// bench's), with its own informers, metrics and event recorder, so a test can stop it and start another one
// against the same in-memory external system: a restart that keeps the "cloud".

export interface RunningNop {
  provider: NopProvider;
  system: NopExternalSystem;
  metrics: Metrics;
  client: KubeClient;
  stop(): Promise<void>;
  /** external_calls_total{provider="nop"} so far, of one operation or all. */
  externalCalls(operation?: string): Promise<number>;
  /** controller_runtime_reconcile_total of the NopResource controllers (both kinds) so far. */
  reconciles(): Promise<number>;
}

export const DEFAULT_SETTINGS: ManagedControllerSettings = {
  pollIntervalMs: 10 * 60_000,
  minPollIntervalMs: 1_000,
  syncIntervalMs: 60 * 60_000,
  reconcileLimiter: new ReconcileLimiter(reconcileLimits(50).reconciles),
  workers: 10,
};

export async function startNop(
  kubeConfig: KubeConfig,
  options: { settings?: Partial<ManagedControllerSettings>; system?: NopExternalSystem } = {},
): Promise<RunningNop> {
  const metrics = createMetrics({ processMetrics: false });
  const client = new KubeClient(kubeConfig, (method, code) => {
    metrics.restClientRequests.inc({ method, code });
  });
  const logger = pino({ level: process.env.ENGINE_LOG ?? 'silent' });
  const settings = { ...DEFAULT_SETTINGS, ...options.settings };
  const informers = new InformerRegistry({
    client,
    kubeConfig,
    discovery: new Discovery(client),
    logger,
    syncIntervalMs: settings.syncIntervalMs,
  });
  const events = new EventRecorder({ client, logger });
  const provider = new NopProvider({
    client,
    informers,
    events,
    metrics,
    logger,
    settings,
    installCrd: true,
    system: options.system,
  });
  await provider.start();
  const sum = async (name: string, match: (labels: Partial<Record<string, string | number>>) => boolean) => {
    const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
    return (metric?.values ?? []).filter((v) => match(v.labels)).reduce((total, v) => total + v.value, 0);
  };
  return {
    provider,
    system: provider.system,
    metrics,
    client,
    stop: async () => {
      await provider.stop(AbortSignal.timeout(5_000));
      await events.flush();
      await informers.stop();
    },
    externalCalls: (operation) =>
      sum(
        'external_calls_total',
        (l) => l.provider === 'nop' && (operation === undefined || l.operation === operation),
      ),
    reconciles: () => {
      const names = new Set(provider.controllers.map((controller) => controller.name));
      return sum('controller_runtime_reconcile_total', (l) => names.has(String(l.controller)));
    },
  };
}

export function nopResource(
  namespace: string,
  name: string,
  forProvider: NopParameters,
  extra: { annotations?: Record<string, string>; spec?: Record<string, unknown> } = {},
): NopResource & KubeObject {
  return {
    apiVersion: NOP_API_VERSION,
    kind: NOP_KIND,
    metadata: { name, namespace, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { forProvider, ...extra.spec },
  };
}

/** A NopResource of Crossplane's provider-nop API (nop.crossplane.io): cluster-scoped, so no namespace. */
export function providerNopResource(
  name: string,
  forProvider: NopParameters,
  extra: { spec?: Record<string, unknown> } = {},
): NopResource & KubeObject {
  return {
    apiVersion: PROVIDER_NOP_API_VERSION,
    kind: NOP_KIND,
    metadata: { name },
    spec: { forProvider, ...extra.spec },
  };
}

/** Ready True from the start: settles at the first observe after creation. */
export const READY_AT_ONCE: NopParameters = {
  conditionAfter: [{ time: '0s', conditionType: 'Ready', conditionStatus: 'True' }],
};
