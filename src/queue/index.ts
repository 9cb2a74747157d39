// queue: the controllers' work queue. Dedupes keys, delays and backs them off, serves them FIFO or round-robin by
// namespace, meters every reconcile through the process's one reconcile limiter, and runs a bounded pool of workers
// so a key is never reconciled twice at once.
export { FairLine, namespaceOfKey, type FairLineOptions } from './fairLine.js';
export { FifoLine, type KeyLine } from './keyLine.js';
export { ItemBackoff } from './itemBackoff.js';
export type { ReconcileOutcome, ReconcileResult, Reconciler } from './outcome.js';
export { ReconcileLimiter, type TokenWaiter } from './reconcileLimiter.js';
export { ReconcileQueue, type ReconcileQueueOptions, type ShutdownResult } from './reconcileQueue.js';
