import { errorMessage } from '../base/index.js';
import { withAppliedDigest, type Xr, type XrType } from '../controller/index.js';
import type { State } from '../functions/index.js';
import type { Discovery, EventInput } from '../kube/index.js';
import { ComposedResourceError, renderComposed, type ComposedObject } from './composed.js';
import type { DesiredResource } from './composedClient.js';
import type { ResourceRef } from './xr.js';

export interface RenderDesiredOptions {
  discovery: Discovery;
  xrType: XrType;
  /** A Warning about the XR (a namespace overridden). */
  warn: (event: EventInput) => void;
}

/**
 * The desired composed resources with rendered metadata (composed.ts), settled namespaces and the applied digest, in
 * the pipeline's order. A namespaced XR composes only namespaced resources, in its own namespace.
 */
export async function renderDesired(
  options: RenderDesiredOptions,
  xr: Xr,
  desired: State,
  observed: ReadonlyMap<string, ComposedObject>,
): Promise<DesiredResource[]> {
  const rendered: DesiredResource[] = [];
  for (const [name, resource] of Object.entries(desired.resources ?? {})) {
    const object = renderComposed(resource.resource ?? {}, { xr, resourceName: name, observed: observed.get(name) });
    const info = await options.discovery.resolve(object.apiVersion, object.kind).catch((err: unknown) => {
      throw new ComposedResourceError(name, `cannot compose resource "${name}": ${errorMessage(err)}`);
    });
    if (options.xrType.namespaced) {
      if (!info.namespaced) {
        throw new ComposedResourceError(
          name,
          `cannot apply cluster scoped composed resource "${name}" (a ${object.kind} named ${object.metadata.name}) for a namespaced composite resource.`,
        );
      }
      const namespace = xr.metadata.namespace ?? '';
      if (object.metadata.namespace && object.metadata.namespace !== namespace) {
        options.warn({
          type: 'Warning',
          reason: 'NamespaceOverridden',
          message: `cannot create composed resource "${name}" in namespace "${object.metadata.namespace}", using XR namespace "${namespace}" instead`,
        });
      }
      object.metadata.namespace = namespace;
    } else if (!info.namespaced) {
      delete object.metadata.namespace;
    }
    rendered.push({ name, object: withAppliedDigest(object), ready: resource.ready === 'READY_TRUE' });
  }
  return rendered;
}

/** The resourceRefs entry of a composed resource; a namespaced XR's refs carry no namespace (it is the XR's). */
export function refOf(object: ComposedObject, xrType: XrType): ResourceRef {
  const ref: ResourceRef = { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name };
  if (!xrType.namespaced && object.metadata.namespace) ref.namespace = object.metadata.namespace;
  return ref;
}
