import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import { isConflict } from '../kube/index.js';
import type { Metrics } from '../metrics/index.js';
import { ReconcileQueue, type ReconcileLimiter, type ReconcileResult } from '../queue/index.js';
import { objectKey, type InformerLease, type InformerRegistry } from '../watch/index.js';

const XRD = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' };

/** The work queue of a controller of XRDs (the XRD controller, or a shard's follower), keyed by XRD name. */
export function xrdQueue(options: {
  name: string;
  metrics: Metrics;
  logger: Logger;
  workers: number;
  limiter: ReconcileLimiter;
  reconcile: (key: string, signal: AbortSignal) => Promise<ReconcileResult>;
}): ReconcileQueue {
  const { name, logger } = options;
  return new ReconcileQueue({
    ...options,
    isConflict,
    onError: (key, err) => {
      logger.warn({ controller: name, xrd: key, err: errorMessage(err) }, 'reconcile failed');
    },
  });
}

/**
 * Watches XRDs into `queue`; resolves once the cache is synced, with every cached XRD queued once. The caller starts
 * the queue after keeping the lease: a reconcile reads the XRD from it.
 */
export async function watchXrds(informers: InformerRegistry, queue: ReconcileQueue): Promise<InformerLease> {
  const lease = await informers.acquire(XRD.apiVersion, XRD.kind);
  lease.informer.events$.subscribe((event) => {
    queue.add(objectKey(event.object));
  });
  await lease.informer.waitForSync();
  for (const key of lease.informer.store.keys()) queue.add(key);
  return lease;
}
