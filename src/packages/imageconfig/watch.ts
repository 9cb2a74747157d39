// Which packages (or revisions) an ImageConfig's change concerns, as Crossplane v2.3's watches map them
// (internal/controller/pkg/{manager,revision}/watch.go): only an ImageConfig giving a pull secret or a rewrite, and
// the objects whose source or resolved reference starts with one of its prefixes. An update is mapped through the
// old object too, as controller-runtime's mapping handler does, so an object a changed prefix no longer matches drops
// its rewrite. Resyncs change nothing and map to nothing.
import type { WatchEvent } from '../../watch/index.js';
import { affectsPulls, matchesAny } from './match.js';
import type { ImageConfig } from './types.js';

export function imageConfigKeys<T extends { metadata: { name: string } }>(
  event: WatchEvent,
  objects: readonly T[],
  images: (object: T) => readonly (string | undefined)[],
): string[] {
  if (event.type === 'resync') return [];
  const configs = [event.object, ...(event.type === 'update' ? [event.oldObject] : [])] as unknown as ImageConfig[];
  const relevant = configs.filter(affectsPulls);
  if (relevant.length === 0) return [];
  return objects
    .filter((object) => relevant.some((config) => matchesAny(config, images(object))))
    .map((object) => object.metadata.name);
}
