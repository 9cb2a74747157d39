// Which informer events reach the ops controllers' queues, and under which key: the predicates and mappings of
// upstream's controller setup (internal/controller/ops/*/constructor.go), as pure functions for the controller kit.
import type { ObjectMeta } from '../apis/index.js';
import { CRON_OPERATION_LABEL, WATCH_OPERATION_LABEL } from './types.js';

/** An informer event of an ops object (the shape src/watch emits). */
export type OpsEvent =
  | { type: 'add' | 'delete' | 'resync'; object: { metadata: ObjectMeta } }
  | { type: 'update'; object: { metadata: ObjectMeta }; oldObject: { metadata: ObjectMeta } };

/**
 * Upstream's GenerationChangedPredicate, which all three controllers put on their own kind: an update passes only when
 * the spec changed (or deletion began), so a reconciler's own status writes do not bring the object straight back,
 * which would skip the backoff of a failed Operation. Creations and deletions pass; resyncs do not.
 */
export function specChanged(event: OpsEvent): boolean {
  if (event.type === 'resync') return false;
  if (event.type !== 'update') return true;
  const before = event.oldObject.metadata;
  const after = event.object.metadata;
  return before.generation !== after.generation || before.deletionTimestamp !== after.deletionTimestamp;
}

/**
 * The CronOperation or WatchOperation an Operation's change concerns (upstream's Owns(&Operation{})), read from the
 * label each puts on its Operations; undefined for an Operation nobody schedules.
 */
export function ownerOf(metadata: ObjectMeta): { kind: 'CronOperation' | 'WatchOperation'; name: string } | undefined {
  const cron = metadata.labels?.[CRON_OPERATION_LABEL];
  if (cron) return { kind: 'CronOperation', name: cron };
  const watch = metadata.labels?.[WATCH_OPERATION_LABEL];
  if (watch) return { kind: 'WatchOperation', name: watch };
  return undefined;
}
