import { RECONCILE_SUCCESS } from '../controller/index.js';
import type { ReconcileResult } from '../queue/index.js';
import {
  EXTERNAL_CREATE_FAILED_ANNOTATION,
  EXTERNAL_CREATE_PENDING_ANNOTATION,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION,
  EXTERNAL_NAME_ANNOTATION,
} from './annotations.js';
import type { ManagedPass } from './pass.js';
import type { ConnectionDetails, ExternalClient, ManagedResource } from './types.js';
import { withManagedFinalizer } from './writer.js';

/** After Create, how soon the new external resource is observed (it is usually not ready yet). */
const OBSERVE_AFTER_CREATE_MS = 500;

/**
 * The create-pending protocol around ExternalClient.create: a PUT that records external-create-pending (and the
 * finalizer, and a defaulted external name) and must succeed on the version just read, since a 409 means the
 * cache was stale or someone else moved first (requeued at once, nothing created); then Create; then
 * external-create-succeeded or -failed, a write retried because without it the next reconcile refuses to go on.
 */
export async function createExternal<T extends ManagedResource>(
  pass: ManagedPass<T>,
  external: ExternalClient<T>,
): Promise<ReconcileResult> {
  const { mr, signal } = pass;
  mr.metadata.annotations = { ...mr.metadata.annotations, [EXTERNAL_CREATE_PENDING_ANNOTATION]: pass.stamp() };
  mr.metadata.finalizers = withManagedFinalizer(mr.metadata.finalizers);
  try {
    mr.metadata = (await pass.writer.update(mr, signal)).metadata;
  } catch (err) {
    const what = 'cannot update managed resource';
    return pass.fail({ reason: 'CannotUpdateManagedResource', what, err, ready: 'Creating' });
  }
  let details: ConnectionDetails;
  try {
    details = (await external.create(mr, signal)).connectionDetails ?? {};
  } catch (err) {
    await recordCreation(pass, EXTERNAL_CREATE_FAILED_ANNOTATION).catch((writeErr: unknown) => {
      pass.warn('cannot record a failed create', writeErr);
    });
    return pass.fail({ reason: 'CannotCreateExternalResource', what: 'create failed', err, ready: 'Creating' });
  }
  try {
    await recordCreation(pass, EXTERNAL_CREATE_SUCCEEDED_ANNOTATION);
  } catch (err) {
    const what = 'cannot update managed resource annotations';
    return pass.fail({ reason: 'CannotUpdateManagedResource', what, err, ready: 'Creating' });
  }
  await pass.publish(details);
  pass.event({
    type: 'Normal',
    reason: 'CreatedExternalResource',
    message: 'Successfully requested creation of external resource',
  });
  pass.status.setCondition({ type: 'Ready', status: 'False', reason: 'Creating' });
  pass.status.setCondition(RECONCILE_SUCCESS);
  await pass.writeStatus();
  return { requeueAfterMs: OBSERVE_AFTER_CREATE_MS };
}

async function recordCreation<T extends ManagedResource>(pass: ManagedPass<T>, annotation: string): Promise<void> {
  const { mr } = pass;
  const annotations = {
    [annotation]: pass.stamp(),
    // Create may have set it (an ID the external system chose): losing it would leak the resource.
    [EXTERNAL_NAME_ANNOTATION]: mr.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION] ?? mr.metadata.name,
  };
  mr.metadata = (await pass.writer.patchCriticalAnnotations(mr, annotations, pass.signal)).metadata;
}
