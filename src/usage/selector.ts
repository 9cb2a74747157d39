import type { ReconciledObject } from '../controller/index.js';
import type { UsageObjects } from './objects.js';
import type { Usage, UsageResource } from './types.js';

/** Which side of a Usage a selector is on: the used object (`of`) or its user (`by`). */
export type UsageSide = 'of' | 'by';

/**
 * Resolves a Usage's `resourceSelector` to a name, as Crossplane's usage controller does (selector.go): the first
 * object of the kind with every label, and with `matchControllerRef` the same controller as the Usage. The result
 * is stored in the Usage's `resourceRef`, after which the selector is ignored. `of` selects in the selector's
 * namespace, else the Usage's; `by` always in the Usage's (a namespaced Usage lives beside its user).
 *
 * @example
 * const ref = await resolveSelector(objects, usage, 'of'); // { name: 'db-x7k2p' }
 */
export async function resolveSelector(
  objects: UsageObjects,
  usage: Usage,
  side: UsageSide,
  signal?: AbortSignal,
): Promise<NonNullable<UsageResource['resourceRef']>> {
  const { apiVersion, kind, resourceSelector: selector } = usage.spec[side] ?? {};
  if (!selector || !apiVersion || !kind) throw new Error(`no selector defined for resolving at "spec.${side}"`);
  const namespace = (side === 'of' ? selector.namespace : undefined) ?? usage.metadata.namespace;
  const found = await objects.list({ apiVersion, kind, selector }, namespace, signal);
  const labels = JSON.stringify(selector.matchLabels ?? {});
  if (found.length === 0) throw new Error(`no "${kind}" found matching labels: ${labels}`);
  const chosen = selector.matchControllerRef === true ? found.find((o) => sameController(o, usage)) : found[0];
  if (!chosen) throw new Error(`no "${kind}" found matching labels: ${labels} and with same controller reference`);
  return referenceTo(chosen, usage);
}

/** The namespace is kept only when the object is not in the Usage's own, as Crossplane keeps it. */
function referenceTo(chosen: ReconciledObject, usage: Usage): NonNullable<UsageResource['resourceRef']> {
  const { name, namespace } = chosen.metadata;
  return namespace && namespace !== usage.metadata.namespace ? { name, namespace } : { name };
}

function controllerUid(object: ReconciledObject): string | undefined {
  const owners = object.metadata.ownerReferences ?? [];
  return owners.find((owner) => owner.controller === true)?.uid;
}

function sameController(a: ReconciledObject, b: ReconciledObject): boolean {
  const uid = controllerUid(a);
  return uid !== undefined && uid === controllerUid(b);
}
