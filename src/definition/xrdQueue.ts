import type { Logger } from 'pino';
import { ControllerShell, watchKind } from '../controller/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ReconcileLimiter, Reconciler } from '../queue/index.js';
import type { InformerRegistry } from '../watch/index.js';

export const XRD = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' } as const;

/**
 * The shell of a controller of XRDs (the XRD controller, or a shard's follower): keyed by XRD name, with a pool of
 * its own size whatever --max-concurrent-reconciles says, and a failure logged as a warning.
 */
export function xrdShell(options: {
  name: string;
  informers: InformerRegistry;
  metrics: Metrics;
  logger: Logger;
  reconcileLimiter: ReconcileLimiter;
  workers: number;
  reconcile: Reconciler;
  ready?: () => void;
}): ControllerShell {
  const { reconcileLimiter, workers } = options;
  return new ControllerShell({
    ...options,
    settings: { reconcileLimiter, workers },
    watches: [watchKind({ kind: XRD })],
    errors: { keyField: 'xrd', level: 'warn', message: 'reconcile failed' },
  });
}
