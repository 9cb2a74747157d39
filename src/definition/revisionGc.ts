// Composition revision garbage collection (crossplane#4837, #6778: revisions pile up forever upstream). Keeps the
// newest --max-composition-revisions of each Composition, the current one, and every revision an XR still names in
// its compositionRevisionRef; the rest may go. Pure: which revisions to delete; the controller deletes them.

export interface NumberedRevision {
  name: string;
  /** spec.revision */
  number: number;
}

/**
 * The revisions to delete: those beyond the newest `keep` (by number), minus `current` and the `referenced` ones.
 * `referenced` undefined means "unknown" (the XR kind cannot be listed), and then nothing is deleted.
 */
export function revisionsToDelete(
  revisions: readonly NumberedRevision[],
  options: { keep: number; current: string; referenced: ReadonlySet<string> | undefined },
): string[] {
  const { keep, current, referenced } = options;
  const newestFirst = [...revisions].sort((a, b) => b.number - a.number);
  const surplus = newestFirst.slice(keep).filter((r) => r.name !== current);
  if (surplus.length === 0 || referenced === undefined) return [];
  return surplus.filter((r) => !referenced.has(r.name)).map((r) => r.name);
}

/** The revision an XR is pinned to or running on, from its machinery (v2 spec.crossplane or legacy spec). */
export function referencedRevision(xr: { spec?: Record<string, unknown> }): string | undefined {
  const spec = xr.spec ?? {};
  const machinery = (spec.crossplane ?? spec) as { compositionRevisionRef?: { name?: string } };
  return machinery.compositionRevisionRef?.name;
}
