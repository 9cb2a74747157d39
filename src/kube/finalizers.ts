/**
 * A JSON patch that removes `finalizer` from `finalizers`, with a test of the entry first: it removes exactly that
 * entry, or the API server refuses it (422) when the list moved since it was read. Undefined when absent.
 */
export function removeFinalizerPatch(
  finalizers: readonly string[] | undefined,
  finalizer: string,
): { op: string; path: string; value?: string }[] | undefined {
  const index = finalizers?.indexOf(finalizer) ?? -1;
  if (index < 0) return undefined;
  return [
    { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
    { op: 'remove', path: `/metadata/finalizers/${index}` },
  ];
}

/**
 * A JSON patch that appends `finalizer` to `finalizers`, with a test first that the list is still the one read (or,
 * when there was none, that the object is still at `resourceVersion`), so a concurrent change makes the API server
 * refuse it (422) rather than lose an entry. Undefined when the finalizer is already there.
 */
export function addFinalizerPatch(
  finalizers: readonly string[] | undefined,
  finalizer: string,
  resourceVersion?: string,
): { op: string; path: string; value?: unknown }[] | undefined {
  if (finalizers?.includes(finalizer)) return undefined;
  if (finalizers && finalizers.length > 0) {
    return [
      { op: 'test', path: '/metadata/finalizers', value: finalizers },
      { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
    ];
  }
  const guard = resourceVersion ? [{ op: 'test', path: '/metadata/resourceVersion', value: resourceVersion }] : [];
  return [...guard, { op: 'add', path: '/metadata/finalizers', value: [finalizer] }];
}
