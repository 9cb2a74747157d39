// Which replica owns an object when compositor runs sharded (--shard-index/--shard-count, docs/scaling.md). Pure:
// no Kubernetes imports, so it is unit-tested without a server.

/** One replica's slice of the objects: those whose uid hashes to `index` out of `count` shards. */
export interface Shard {
  /** --shard-index: 0 to count - 1. */
  readonly index: number;
  /** --shard-count: 1 means no sharding. */
  readonly count: number;
}

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * 32-bit FNV-1a of the string's UTF-8 bytes, as Go's hash/fnv New32a computes it, so another tool (or a future API
 * server filter) can compute the same shard for a uid.
 */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    // Math.imul keeps the multiplication in 32 bits, as uint32 arithmetic wraps in Go.
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * The shard of an object with this uid: fnv1a32(uid) mod count. The uid never changes and is unique, so an object
 * stays in one shard for its life, and shards fill evenly whatever the namespaces.
 */
export function shardOf(uid: string, count: number): number {
  return fnv1a32(uid) % count;
}

/** Anything with Kubernetes object metadata. */
export interface WithUid {
  metadata: { uid?: unknown; [field: string]: unknown };
}

/** Whether this replica owns the object: always with one shard, otherwise when its uid hashes to our index. */
export function ownedBy(shard: Shard, object: WithUid): boolean {
  if (shard.count <= 1) return true;
  // The API server gives every object a uid; an object without one (a test's literal) goes to shard 0 alone.
  const uid = object.metadata.uid;
  return (typeof uid === 'string' ? shardOf(uid, shard.count) : 0) === shard.index;
}

/**
 * The ownership test a controller applies to the objects it watches; undefined when unsharded, so controllers
 * skip the check entirely in the default configuration.
 *
 * @example
 * const owns = shardFilter({ index: 1, count: 2 });
 * if (owns && !owns(xr)) return; // another replica reconciles this XR
 */
export function shardFilter(shard: Shard): ((object: WithUid) => boolean) | undefined {
  if (shard.count <= 1) return undefined;
  return (object) => ownedBy(shard, object);
}
