import { expect } from 'chai';
import { mapLimited } from '../../../src/composite/index.js';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run (a macrotask turn comes after all queued microtasks). */
function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A task whose calls wait on deferreds the test settles, recording which items started and how many overlap. */
class Tasks {
  readonly started: number[] = [];
  readonly pending = new Map<number, Deferred<string>>();
  inFlight = 0;
  maxInFlight = 0;

  readonly run = async (item: number): Promise<string> => {
    this.started.push(item);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const d = deferred<string>();
    this.pending.set(item, d);
    try {
      return await d.promise;
    } finally {
      this.inFlight--;
    }
  };

  resolve(item: number): void {
    this.take(item).resolve(`done-${item}`);
  }

  reject(item: number, err: unknown): void {
    this.take(item).reject(err);
  }

  private take(item: number): Deferred<string> {
    const d = this.pending.get(item);
    if (!d) throw new Error(`item ${item} is not running (started: ${this.started.join(', ')})`);
    this.pending.delete(item);
    return d;
  }
}

/** Tracks whether a promise settled, and how, without letting a rejection go unhandled. */
function watch<T>(promise: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { settled: () => settled, result: promise };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('composite/limitedParallel mapLimited', () => {
  it('keeps exactly `limit` tasks in flight while items remain, starting them in item order', async () => {
    const tasks = new Tasks();
    const run = watch(mapLimited(range(7), 3, tasks.run));
    await flush();
    expect(tasks.started).to.deep.equal([0, 1, 2]);
    expect(tasks.inFlight).to.equal(3);

    tasks.resolve(1);
    await flush();
    expect(tasks.started).to.deep.equal([0, 1, 2, 3]);
    expect(tasks.inFlight).to.equal(3);

    tasks.resolve(0);
    tasks.resolve(3);
    await flush();
    expect(tasks.started).to.deep.equal([0, 1, 2, 3, 4, 5]);
    for (const item of [2, 4, 5]) tasks.resolve(item);
    await flush();
    expect(tasks.started).to.deep.equal(range(7));
    expect(run.settled(), 'item 6 is still running').to.equal(false);
    tasks.resolve(6);
    await run.result;
    expect(tasks.maxInFlight).to.equal(3);
  });

  it('returns results in item order whatever order the tasks finish in', async () => {
    const tasks = new Tasks();
    const run = mapLimited(range(5), 5, tasks.run);
    await flush();
    for (const item of [4, 2, 0, 3, 1]) tasks.resolve(item);
    expect(await run).to.deep.equal(['done-0', 'done-1', 'done-2', 'done-3', 'done-4']);
  });

  it('runs one at a time with limit 1, as a sequential loop', async () => {
    const tasks = new Tasks();
    const run = mapLimited(range(3), 1, tasks.run);
    for (const item of range(3)) {
      await flush();
      expect(tasks.started).to.deep.equal(range(item + 1));
      tasks.resolve(item);
    }
    expect(await run).to.deep.equal(['done-0', 'done-1', 'done-2']);
    expect(tasks.maxInFlight).to.equal(1);
  });

  it('after a failure starts nothing new, waits for the tasks in flight, then rejects with the earliest item’s error', async () => {
    const tasks = new Tasks();
    const run = watch(mapLimited(range(8), 3, tasks.run));
    await flush();
    const later = new Error('item 2 failed');
    const earlier = new Error('item 1 failed');
    tasks.reject(2, later);
    await flush();
    expect(tasks.started, 'no task starts after a failure').to.deep.equal([0, 1, 2]);
    expect(run.settled(), 'items 0 and 1 are still running').to.equal(false);

    tasks.reject(1, earlier);
    await flush();
    expect(run.settled(), 'item 0 is still running').to.equal(false);
    tasks.resolve(0);
    const err = await run.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'the earliest item in item order, not the first to fail').to.equal(earlier);
    expect(tasks.started).to.deep.equal([0, 1, 2]);
  });

  it('isolates a failure: tasks already running finish and keep their effects', async () => {
    const finished: number[] = [];
    const tasks = new Tasks();
    const run = watch(
      mapLimited(range(4), 4, async (item) => {
        const out = await tasks.run(item);
        finished.push(item);
        return out;
      }),
    );
    await flush();
    tasks.reject(0, new Error('item 0 failed'));
    for (const item of [1, 2, 3]) tasks.resolve(item);
    await run.result.catch(() => undefined);
    expect(finished.sort()).to.deep.equal([1, 2, 3]);
  });

  it('treats a task that throws before returning a promise as a failure of that item', async () => {
    const boom = new Error('synchronous');
    const err = await mapLimited([0, 1], 2, (item) => {
      if (item === 1) throw boom;
      return Promise.resolve(item);
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.equal(boom);
  });

  it('stops starting tasks when the signal aborts and rejects with its reason once those in flight settle', async () => {
    const tasks = new Tasks();
    const controller = new AbortController();
    const run = watch(mapLimited(range(5), 2, tasks.run, { signal: controller.signal }));
    await flush();
    const reason = new Error('shutting down');
    controller.abort(reason);
    tasks.resolve(0);
    await flush();
    expect(tasks.started).to.deep.equal([0, 1]);
    expect(run.settled(), 'item 1 is still running').to.equal(false);
    tasks.resolve(1);
    const err = await run.result.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.equal(reason);
  });

  it('runs nothing when the signal is already aborted', async () => {
    const tasks = new Tasks();
    const reason = new Error('aborted before');
    const err = await mapLimited(range(3), 2, tasks.run, { signal: AbortSignal.abort(reason) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.equal(reason);
    expect(tasks.started).to.deep.equal([]);
  });

  it('resolves with the results when every task finished before an abort', async () => {
    const controller = new AbortController();
    const out = await mapLimited([1, 2], 2, (item) => Promise.resolve(item * 10), { signal: controller.signal });
    controller.abort();
    expect(out).to.deep.equal([10, 20]);
  });

  it('resolves an empty list without calling the task', async () => {
    expect(await mapLimited([], 3, () => Promise.reject(new Error('never called')))).to.deep.equal([]);
  });

  const invalid: Record<string, { limit: number }> = {
    zero: { limit: 0 },
    negative: { limit: -1 },
    fractional: { limit: 1.5 },
    'not a number': { limit: Number.NaN },
  };
  for (const [reason, { limit }] of Object.entries(invalid)) {
    it(`rejects a ${reason} limit with a RangeError`, async () => {
      const err = await mapLimited([1], limit, (item) => Promise.resolve(item)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, reason).to.be.instanceOf(RangeError);
    });
  }
});
