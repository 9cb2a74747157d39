import type { Logger } from 'pino';
import type { Discovery, EventSink, KubeClient } from '../kube/index.js';
import type { Metrics } from '../metrics/index.js';
import type { InformerRegistry } from '../watch/index.js';

/**
 * What every controller of one engine shares (the engine's wiring builds it once): the API client and its discovery,
 * the shared informers, the event recorder, the metrics and the log. A controller's options extend it with its own.
 */
export interface ControllerContext {
  client: KubeClient;
  discovery: Discovery;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
}
