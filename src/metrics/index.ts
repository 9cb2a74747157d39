// metrics: the prom-client registry and every metric compositor exports, defined in this one place so names and
// labels stay controller-runtime compatible. Each manager gets its own registry, which keeps tests isolated.
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  /** rest_client_requests_total{code,method}: every API server request, as client-go counts them. */
  restClientRequests: Counter<'code' | 'method'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return {
    registry,
    restClientRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests to the API server, partitioned by status code and method.',
      labelNames: ['code', 'method'],
      registers: [registry],
    }),
  };
}
