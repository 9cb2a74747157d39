import type { CounterHandle, ExternalOperation, Metrics } from '../metrics/index.js';
import { EXTERNAL_OPERATIONS } from '../metrics/index.js';
import type { ExternalClient, ExternalConnector, ManagedResource } from './types.js';

/**
 * Counts every call to the external system in external_calls_total{provider,operation}, whatever its outcome, so
 * a provider gets the metric without counting anything itself. The series of `provider` are created at 0.
 */
export function meteredConnector<T extends ManagedResource>(
  connector: ExternalConnector<T>,
  metrics: Metrics,
  provider: string,
): ExternalConnector<T> {
  const counters = {} as Record<ExternalOperation, CounterHandle>;
  for (const operation of EXTERNAL_OPERATIONS) {
    const counter = metrics.externalCalls.labels({ provider, operation });
    counter.inc(0);
    counters[operation] = counter;
  }
  return {
    connect: async (mr, signal) => {
      counters.connect.inc();
      return meteredClient(await connector.connect(mr, signal), counters);
    },
  };
}

function meteredClient<T extends ManagedResource>(
  client: ExternalClient<T>,
  counters: Record<ExternalOperation, CounterHandle>,
): ExternalClient<T> {
  return {
    observe: (mr, signal) => {
      counters.observe.inc();
      return client.observe(mr, signal);
    },
    create: (mr, signal) => {
      counters.create.inc();
      return client.create(mr, signal);
    },
    update: (mr, signal) => {
      counters.update.inc();
      return client.update(mr, signal);
    },
    delete: (mr, signal) => {
      counters.delete.inc();
      return client.delete(mr, signal);
    },
    disconnect: (signal) => {
      counters.disconnect.inc();
      return client.disconnect(signal);
    },
  };
}
