// PatchSet inlining (patches.go ComposedTemplates): every `type: PatchSet` patch of a template is replaced, in
// place and in order, by the patches of the named set. Sets may not reference other sets.
import { patchType, type ComposedTemplate, type Patch, type PatchSet } from './input.js';

export function composedTemplates(
  patchSets: readonly PatchSet[],
  templates: readonly ComposedTemplate[],
): ComposedTemplate[] {
  const sets = new Map<string, Patch[]>();
  for (const set of patchSets) {
    if ((set.patches ?? []).some((p) => patchType(p) === 'PatchSet')) {
      throw new Error(`cannot use patches of type PatchSet within a PatchSet (set "${set.name ?? ''}")`);
    }
    sets.set(set.name ?? '', set.patches ?? []);
  }
  return templates.map((t) => {
    if (t.patches === undefined) return t;
    const patches = t.patches.flatMap((p) => {
      if (patchType(p) !== 'PatchSet') return [p];
      const set = sets.get(p.patchSetName ?? '');
      if (set === undefined) throw new Error(`cannot find PatchSet by name ${p.patchSetName ?? ''}`);
      return set;
    });
    return { ...t, patches };
  });
}
