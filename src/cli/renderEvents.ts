// The events one reconcile of the XR records, in the order the composite reconciler records them: what crank's
// render prints with -r (each as a render.crossplane.io/v1beta1 Result) and compositor's --include-events prints as
// Event documents.
import { notReadyEvent, type ReconcileEvent } from '../composite/index.js';
import type { PipelineOutput } from '../functions/index.js';

export interface ReconcileEventsInput {
  /** The composition the XR file names at its machinery path, if any: selecting the same one again is no event. */
  fileCompositionRef: string | undefined;
  compositionName: string;
  out: PipelineOutput;
}

/**
 * crossplane internal/controller/apiextensions/composite/reconciler.go Reconcile, as crank's render runs it (no
 * revision selection, connection publishing that never writes):
 * 1. `SelectComposition` "Successfully selected composition: <name>", only when the reference is new or changed;
 * 2. the function results (handleCommonCompositionResult), in pipeline order ("Successfully composed resources" is
 *    a debug log in v2, no event: render_test.go TestRender/EmptyPipeline records only SelectComposition);
 * 3. `ComposeResources` `Composed resource "<name>" is not yet ready` for each composed resource not READY_TRUE.
 *    Upstream walks the composer's result, built from a Go map, so its order varies from run to run; here it is
 *    by name.
 */
export function reconcileEvents(input: ReconcileEventsInput): ReconcileEvent[] {
  const { out, compositionName } = input;
  const events: ReconcileEvent[] = [];
  if (input.fileCompositionRef !== compositionName) {
    events.push({
      type: 'Normal',
      reason: 'SelectComposition',
      message: `Successfully selected composition: ${compositionName}`,
    });
  }
  events.push(...out.events.map(({ type, reason, message }) => ({ type, reason, message })));
  const resources = out.desired.resources ?? {};
  const unready = Object.keys(resources)
    .filter((name) => resources[name]?.ready !== 'READY_TRUE')
    .sort();
  events.push(...unready.map(notReadyEvent));
  return events;
}
