/**
 * Set to "true" on an object a Usage or ClusterUsage names (Crossplane's label). compositor's admission policy
 * refuses the DELETE of an object carrying it; the usage controller removes it once no Usage names the object.
 */
export const IN_USE_LABEL = 'crossplane.io/in-use';

/**
 * Records that a deletion was attempted and refused while the object was in use; its value is the propagation
 * policy of that attempt. A Usage with `replayDeletion` deletes the object again with it once the Usage is gone.
 * Crossplane's webhook writes it; without a webhook, compositor's own deleters do (the composite controller).
 */
export const DELETION_ATTEMPT_ANNOTATION = 'usage.crossplane.io/deletion-attempt-with-policy';

/** True when the object carries the in-use label, so its deletion is refused while a Usage names it. */
export function isInUse(object: { metadata: { labels?: Record<string, string> } }): boolean {
  return object.metadata.labels?.[IN_USE_LABEL] === 'true';
}
