import type { Xr } from '../controller/index.js';
import { controllerOf, type ComposedObject } from './composed.js';

// What an XR may make compositor touch (docs/crossplane-differences.md#tenancy). Whoever may edit an XR chooses,
// through its spec, the names functions give composed resources, and writes its resourceRefs directly; neither may
// turn compositor into a deputy that writes or deletes what another controller owns. An XR touches only objects it
// controls or that no controller holds (Crossplane's "controllable"), and a namespaced XR only its own namespace
// (desired.ts settles namespaces, composedClient.ts reads refs there). Pure: no Kubernetes calls.

/**
 * Why `existing`, the object a desired composed resource would be applied to, is not this XR's to apply: another
 * object controls it. Undefined when it does not exist, this XR controls it, or no controller holds it (then the apply
 * adopts it, as Crossplane's does). The API server would refuse the apply too (an object has at most one controller
 * reference), but only where the other controller's reference was written under another field manager.
 *
 * @example controlConflict(xr, 'db', existing) === 'cannot apply composed resource "db" (a ConfigMap named shared): it is controlled by XApp "other"'
 */
export function controlConflict(xr: Xr, name: string, existing: ComposedObject | undefined): string | undefined {
  const controller = existing ? controllerOf(existing) : undefined;
  if (!existing || !controller || controller.uid === xr.metadata.uid) return undefined;
  const { kind, metadata } = existing;
  const where = metadata.namespace ? ` in namespace ${metadata.namespace}` : '';
  return `cannot apply composed resource "${name}" (a ${kind} named ${metadata.name}${where}): it is controlled by ${controller.kind} "${controller.name}"`;
}

/**
 * Of two objects that carry one composition resource name (the annotation is anyone's to set), the one observed for
 * it: the one this XR controls, else the first. An annotated object listed in resourceRefs never displaces the
 * resource the XR composed, so it can neither be adopted in its place nor hide it from garbage collection.
 */
export function observedOf(xr: Xr, first: ComposedObject, second: ComposedObject): ComposedObject {
  const ours = (object: ComposedObject): boolean => controllerOf(object)?.uid === xr.metadata.uid;
  return !ours(first) && ours(second) ? second : first;
}
