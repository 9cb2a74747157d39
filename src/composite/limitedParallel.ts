/**
 * Runs `task` over `items` with at most `limit` tasks in flight, starting them in item order, and resolves with
 * their results in item order.
 *
 * Failure reads as a sequential loop's would: once a task rejects (or `signal` aborts), no further task starts;
 * when those already in flight have settled, the call rejects with the rejection of the earliest item in item order
 * (or the signal's reason). Unlike a sequential loop, up to `limit - 1` items after the failing one may have run:
 * callers must not depend on later items never starting.
 *
 * It never leaves a task running behind a settled promise, so a caller that returns after it returns holds no work
 * in the background.
 *
 * @example
 * const written = await mapLimited(objects, 8, (object) => apply(object), { signal });
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
  options: { signal?: AbortSignal } = {},
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number above 0, not ${limit}`);
  const { signal } = options;
  signal?.throwIfAborted();
  const results = new Array<R>(items.length);
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && failures.size === 0 && signal?.aborted !== true) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (err) {
        failures.set(index, err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  // Aborted between tasks with none failing: the items not started must not pass for done.
  if (next < items.length) signal?.throwIfAborted();
  return results;
}
