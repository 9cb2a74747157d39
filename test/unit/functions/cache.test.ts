import { expect } from 'chai';
import {
  CachingRunner,
  withResponseCache,
  type CacheMetrics,
  type FunctionCall,
  type FunctionRunner,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

const HOUR = 3_600_000;

/** A function that answers with the given TTL and counts its calls. */
class CountingRunner implements FunctionRunner {
  calls = 0;
  constructor(private readonly ttlMs: number | undefined) {}
  run(): Promise<RunFunctionResponse> {
    this.calls++;
    return Promise.resolve({ meta: this.ttlMs === undefined ? {} : { ttlMs: this.ttlMs } });
  }
}

const call: FunctionCall = { functionName: 'fn', request: { input: { value: 'a' } } };

/** How many times the function runs for two identical calls `afterMs` apart. */
async function callsFor(ttlMs: number | undefined, cache: { maxTtlMs?: number }, afterMs: number): Promise<number> {
  let now = 0;
  const inner = new CountingRunner(ttlMs);
  const runner = new CachingRunner(inner, { ...cache, clock: { now: () => now } });
  await runner.run(call);
  now += afterMs;
  await runner.run(call);
  return inner.calls;
}

describe('functions/response cache', () => {
  const cases: Record<string, { ttlMs?: number; maxTtlMs?: number; afterMs: number; want: number }> = {
    'reuses a response within its TTL': { ttlMs: HOUR, afterMs: HOUR - 1, want: 1 },
    'calls again once the TTL has passed': { ttlMs: HOUR, afterMs: HOUR, want: 2 },
    'never stores a response without a TTL': { afterMs: 0, want: 2 },
    'bounds the TTL by maxTtlMs': { ttlMs: 2 * HOUR, maxTtlMs: HOUR, afterMs: HOUR, want: 2 },
    'bounds it by 24h by default': { ttlMs: 48 * HOUR, afterMs: 24 * HOUR, want: 2 },
    'takes maxTtlMs 0 as no bound, as Crossplane does': { ttlMs: 48 * HOUR, maxTtlMs: 0, afterMs: 47 * HOUR, want: 1 },
  };
  for (const [name, { ttlMs, maxTtlMs, afterMs, want }] of Object.entries(cases)) {
    it(name, async () => {
      expect(await callsFor(ttlMs, maxTtlMs === undefined ? {} : { maxTtlMs }, afterMs), name).to.equal(want);
    });
  }

  it('keeps at most maxEntries, forgetting the oldest stored first and expired ones before it', async () => {
    let now = 0;
    const inner = new CountingRunner(HOUR);
    const runner = new CachingRunner(inner, { clock: { now: () => now }, maxEntries: 2 });
    const callFor = (value: string): FunctionCall => ({ functionName: 'fn', request: { input: { value } } });
    await runner.run(callFor('a'));
    await runner.run(callFor('b'));
    await runner.run(callFor('a'));
    expect(inner.calls, 'a hit').to.equal(2);
    await runner.run(callFor('c'));
    expect(runner.size).to.equal(2);
    await runner.run(callFor('a'));
    expect(inner.calls, 'a, stored first, was forgotten: a hit does not make an entry live longer').to.equal(4);
    now += HOUR;
    await runner.run(callFor('d'));
    expect(runner.size, 'the expired entries at the front went first').to.equal(1);
  });

  it('does not digest the calls of a function whose last answer had no TTL, and caches it again once it has one', async () => {
    const answer: { ttlMs?: number } = {};
    let digested = 0;
    const inner: FunctionRunner = { run: () => Promise.resolve({ meta: { ...answer } }) };
    const runner = new CachingRunner(inner, { clock: { now: () => 0 } });
    // A request whose digest can be seen: digest() reads every field, this getter included.
    const counted = (): FunctionCall => ({
      functionName: 'fn',
      request: {
        get input() {
          digested++;
          return { value: 'a' };
        },
      },
    });
    await runner.run(counted());
    await runner.run(counted());
    expect(digested, 'only the first call, before its answer said no TTL').to.equal(1);
    answer.ttlMs = HOUR;
    await runner.run(counted());
    expect(runner.size, 'not stored: the request was not digested before the call').to.equal(0);
    await runner.run(counted());
    await runner.run(counted());
    expect(runner.size).to.equal(1);
    expect(digested).to.equal(3);
  });

  it('is left out when disabled (--enable-function-response-cache=false)', () => {
    const inner = new CountingRunner(HOUR);
    expect(withResponseCache(inner, { enabled: false, maxTtlMs: HOUR })).to.equal(inner);
    expect(withResponseCache(inner, { enabled: true, maxTtlMs: HOUR })).to.be.instanceOf(CachingRunner);
  });
});

describe('functions/response cache byte budget', () => {
  /** A function answering with a TTL and a payload of `chars` characters, different per call. */
  function payloads(chars: number): FunctionRunner & { calls: number } {
    const runner = {
      calls: 0,
      run: (): Promise<RunFunctionResponse> => {
        runner.calls++;
        return Promise.resolve({ meta: { ttlMs: HOUR }, output: { data: 'x'.repeat(chars) } });
      },
    };
    return runner;
  }
  const callFor = (value: string): FunctionCall => ({ functionName: 'fn', request: { input: { value } } });

  it('keeps the stored responses within maxBytes, forgetting the oldest first', async () => {
    const inner = payloads(2000);
    const runner = new CachingRunner(inner, { clock: { now: () => 0 }, maxBytes: 5000 });
    for (const value of ['a', 'b', 'c', 'd']) await runner.run(callFor(value));
    // Each response is a little over 2,000 bytes serialised (one byte a character): two fit.
    expect(runner.size).to.equal(2);
    expect(runner.sizeBytes).to.be.at.most(5000);
    await runner.run(callFor('d'));
    await runner.run(callFor('a'));
    expect(inner.calls, 'd was a hit, a had been forgotten').to.equal(5);
  });

  it('never stores a response larger than the whole budget', async () => {
    const inner = payloads(10_000);
    const runner = new CachingRunner(inner, { clock: { now: () => 0 }, maxBytes: 5000 });
    await runner.run(callFor('a'));
    await runner.run(callFor('a'));
    expect(inner.calls).to.equal(2);
    expect(runner.size).to.equal(0);
    expect(runner.sizeBytes).to.equal(0);
  });
});

describe('functions/response cache slots', () => {
  /** A function answering with a TTL, echoing its input, counting its calls. */
  function echoing(): FunctionRunner & { calls: number } {
    const runner = {
      calls: 0,
      run: (call: FunctionCall): Promise<RunFunctionResponse> => {
        runner.calls++;
        return Promise.resolve({
          meta: { ttlMs: HOUR },
          desired: {
            resources: {
              a: { resource: { input: call.request.input ?? {} }, connectionDetails: { k: new Uint8Array([1, 2]) } },
            },
          },
        });
      },
    };
    return runner;
  }
  /** A call of step `step` for the XR with `uid`, with `value` standing for everything else in its request. */
  const xrCall = (uid: string, value: string, step = 's'): FunctionCall => ({
    functionName: 'fn',
    step,
    request: { observed: { composite: { resource: { metadata: { uid } } } }, input: { value } },
  });

  it("keeps an XR's two latest responses per step: an older request is called again", async () => {
    const inner = echoing();
    const runner = new CachingRunner(inner, { clock: { now: () => 0 } });
    for (const value of ['a', 'b', 'c']) await runner.run(xrCall('uid-1', value));
    expect(runner.size, 'one slot, two responses').to.equal(2);
    await runner.run(xrCall('uid-1', 'b'));
    await runner.run(xrCall('uid-1', 'c'));
    expect(inner.calls, 'b and c were hits').to.equal(3);
    await runner.run(xrCall('uid-1', 'a'));
    expect(inner.calls, 'a had been dropped from the slot').to.equal(4);
  });

  it('keeps the slots of other XRs and other steps apart', async () => {
    const inner = echoing();
    const runner = new CachingRunner(inner, { clock: { now: () => 0 } });
    for (const uid of ['uid-1', 'uid-2']) for (const value of ['a', 'b', 'c']) await runner.run(xrCall(uid, value));
    await runner.run(xrCall('uid-1', 'c', 'other'));
    expect(runner.size).to.equal(5);
    await runner.run(xrCall('uid-2', 'c'));
    await runner.run(xrCall('uid-1', 'c'));
    expect(inner.calls, 'both XRs kept their latest').to.equal(7);
  });

  it('answers a hit with a copy of its own, bytes included', async () => {
    const inner = echoing();
    const runner = new CachingRunner(inner, { clock: { now: () => 0 } });
    const first = await runner.run(xrCall('uid-1', 'a'));
    const hit = await runner.run(xrCall('uid-1', 'a'));
    expect(hit).to.deep.equal(first);
    const details = hit.desired?.resources?.a?.connectionDetails?.k;
    expect(details).to.be.instanceOf(Uint8Array);
    if (hit.desired?.resources?.a) hit.desired.resources.a.resource = { changed: true };
    expect(await runner.run(xrCall('uid-1', 'a'))).to.deep.equal(first);
    expect(inner.calls).to.equal(1);
  });

  it('counts hits, misses, writes and deletes by function', async () => {
    const seen: string[] = [];
    const metrics: CacheMetrics = {
      hit: (fn) => seen.push(`hit ${fn}`),
      miss: (fn) => seen.push(`miss ${fn}`),
      written: (fn, bytes) => seen.push(`written ${fn} ${bytes > 0}`),
      deleted: (fn, bytes) => seen.push(`deleted ${fn} ${bytes > 0}`),
    };
    const runner = new CachingRunner(echoing(), { clock: { now: () => 0 }, metrics });
    for (const value of ['a', 'a', 'b', 'c']) await runner.run(xrCall('uid-1', value));
    expect(seen).to.deep.equal([
      'miss fn',
      'written fn true',
      'hit fn',
      'miss fn',
      'written fn true',
      'miss fn',
      'deleted fn true',
      'written fn true',
    ]);
  });
});
