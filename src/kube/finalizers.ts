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
