// What the cache keeps of an object. metadata.managedFields is often the largest part of a stored object and no
// reconciler reads it, so it is dropped before caching (kro#724: memory that grows with the cluster). Dropping it is
// also safe for a PUT built from a cached object: the API server keeps the stored managedFields when a request
// omits them. The last-applied-configuration annotation is kept, since a PUT without it would delete it.

/** The object as the cache keeps it: without metadata.managedFields, unless `enabled` is false. */
export function trimForCache<T>(object: T, enabled: boolean): T {
  if (!enabled) return object;
  const metadata = (object as { metadata?: { managedFields?: unknown } }).metadata;
  if (metadata?.managedFields === undefined) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}
