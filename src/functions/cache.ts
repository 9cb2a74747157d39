// The response cache (--enable-function-response-cache, on by default): a function's response is reused for an
// identical request until its TTL ends. Looked up by function name and a digest of the request; responses without a
// TTL are never stored. Crossplane's cache (off by default there) keeps the same entries on disk; this one is in
// memory, so what it keeps is bounded by what can still be hit:
// - One XR's calls to one step share a slot holding its two latest responses. Any change to the XR or to what it
//   observes or requires changes the request, so an older response of that XR can only be hit again if everything
//   went back as it was; the two latest cover a requirements loop (the call that learns the requirements and the one
//   that answers them). Without slots an XR converging kept one response per reconcile for a whole TTL.
// - Responses are kept serialised (v8.serialize), about half the size of the object graph, and outside the
//   JavaScript heap; a hit deserialises a copy of its own, as structuredClone did.
import { deserialize, serialize } from 'node:v8';
import { LruMap, systemClock, type Clock } from '../base/index.js';
import { digest } from './hash.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionResponse } from './types.js';

/** What the cache reports, as Crossplane's cached runner does (function_run_function_response_cache_*). */
export interface CacheMetrics {
  hit(functionName: string): void;
  miss(functionName: string): void;
  written(functionName: string, bytes: number): void;
  deleted(functionName: string, bytes: number): void;
}

export interface CacheDeps {
  clock?: Pick<Clock, 'now'>;
  /**
   * Upper bound on how long any response is kept (--xfn-cache-max-ttl). Default 24h; 0 means no bound, so the
   * function's TTL alone decides, as Crossplane's cache reads its --xfn-cache-max-ttl 0.
   */
  maxTtlMs?: number;
  /**
   * Responses kept at most; when full, the slots stored first go first, and expired ones among them before the
   * oldest live one. Default 10000.
   */
  maxEntries?: number;
  /**
   * How many bytes the stored responses may take together (serialised); when full, slots go as above. A response
   * larger than this on its own is not stored. Default 256 MiB: a function may answer with up to 4 MiB, and 10,000
   * of those would be 40 GiB.
   */
  maxBytes?: number;
  metrics?: CacheMetrics;
}

const DEFAULT_MAX_TTL_MS = 86_400_000;
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 10_000;
/** Responses one slot keeps: the latest call and the one before it (see the header). */
const RESPONSES_PER_SLOT = 2;

/** The response's TTL, at most maxTtlMs unless that is 0 (no bound). */
function clampTtl(ttlMs: number, maxTtlMs: number): number {
  return maxTtlMs > 0 ? Math.min(ttlMs, maxTtlMs) : ttlMs;
}

interface Entry {
  digest: string;
  deadline: number;
  payload: Buffer;
}

/** A slot: one XR's calls to one step (or, without an XR, one request), latest response first. */
interface Slot {
  functionName: string;
  entries: Entry[];
}

/**
 * Where a call's responses are kept: its function, step and XR (the observed composite's uid) when it has one, else
 * its own digest, so calls outside an XR (render, tests) each keep their own entry.
 */
function slotOf(call: FunctionCall, requestDigest: string): string {
  const metadata = call.request.observed?.composite?.resource?.metadata;
  const uid = typeof metadata === 'object' && metadata !== null ? (metadata as { uid?: unknown }).uid : undefined;
  return typeof uid === 'string' && uid !== ''
    ? `${call.functionName}\u0000${call.step ?? ''}\u0000${uid}`
    : `${call.functionName}\u0000${requestDigest}`;
}

export class CachingRunner implements FunctionRunner {
  /** By slot, in the order they were stored: a hit does not make a slot live longer. */
  private readonly slots: LruMap<string, Slot>;
  private readonly clock: Pick<Clock, 'now'>;
  /**
   * Functions whose last answer had no TTL (the built-ins always, as the engine drops theirs): their calls are not
   * looked up, which spares digesting every request (the XR and all its observed resources) for a lookup that cannot
   * hit. A function that answers with a TTL again is looked up again from its next call on.
   */
  private readonly withoutTtl = new Set<string>();
  /** Serialised bytes of every stored response, together. */
  private bytes = 0;
  /** Responses stored, over all slots. */
  private count = 0;

  constructor(
    private readonly inner: FunctionRunner,
    private readonly deps: CacheDeps = {},
  ) {
    this.clock = deps.clock ?? systemClock;
    // A slot holds at least one response, so store() bounds the slots before this bound is ever reached.
    this.slots = new LruMap({
      max: deps.maxEntries ?? DEFAULT_MAX_ENTRIES,
      onEvict: (_key, slot) => {
        for (const entry of slot.entries) this.release(slot.functionName, entry);
      },
    });
  }

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const { functionName } = call;
    const place = this.placeOf(call);
    const hit = place && this.lookup(place);
    if (hit !== undefined) {
      this.deps.metrics?.hit(functionName);
      return deserialize(hit.payload) as RunFunctionResponse;
    }
    if (place !== undefined) this.deps.metrics?.miss(functionName);
    const response = await this.inner.run(call);
    const ttl = clampTtl(response.meta?.ttlMs ?? 0, this.deps.maxTtlMs ?? DEFAULT_MAX_TTL_MS);
    if (ttl <= 0) this.withoutTtl.add(functionName);
    else this.withoutTtl.delete(functionName);
    if (ttl > 0 && place !== undefined) {
      const entry = { digest: place.digest, deadline: this.clock.now() + ttl, payload: serialize(response) };
      this.store(place.slot, functionName, entry);
    }
    return response;
  }

  /**
   * The call's slot and request digest; undefined for a function whose last answer had no TTL. Digested before the
   * call: the function may not leave the request as it found it.
   */
  private placeOf(call: FunctionCall): { slot: string; digest: string } | undefined {
    if (this.withoutTtl.has(call.functionName)) return undefined;
    const requestDigest = digest(call.request);
    return { slot: slotOf(call, requestDigest), digest: requestDigest };
  }

  /** Number of stored responses, expired or not; informational only. */
  get size(): number {
    return this.count;
  }

  /** How many bytes the stored responses take, serialised; informational only. */
  get sizeBytes(): number {
    return this.bytes;
  }

  private lookup(place: { slot: string; digest: string }): Entry | undefined {
    const now = this.clock.now();
    return this.slots.peek(place.slot)?.entries.find((e) => e.digest === place.digest && e.deadline > now);
  }

  /**
   * Stores a response as its slot's latest, dropping the slot's oldest past RESPONSES_PER_SLOT and a response for the
   * same request; when full (responses or bytes), expired slots at the front go first, then the oldest. A response
   * past the whole byte budget is not stored at all.
   */
  private store(key: string, functionName: string, entry: Entry): void {
    const maxBytes = this.deps.maxBytes ?? DEFAULT_MAX_BYTES;
    if (entry.payload.length > maxBytes) return;
    const slot = this.slots.peek(key) ?? { functionName, entries: [] };
    this.slots.delete(key);
    const kept = slot.entries.filter((e) => e.digest !== entry.digest).slice(0, RESPONSES_PER_SLOT - 1);
    for (const dropped of slot.entries.filter((e) => !kept.includes(e))) this.release(functionName, dropped);
    slot.entries = kept;
    const maxEntries = this.deps.maxEntries ?? DEFAULT_MAX_ENTRIES;
    const full = (): boolean => this.count + 1 > maxEntries || this.bytes + entry.payload.length > maxBytes;
    if (full()) {
      const now = this.clock.now();
      this.forget((s) => s.entries.every((e) => e.deadline <= now));
    }
    // Oldest first, until the new response fits.
    this.forget(full);
    slot.entries.unshift(entry);
    this.slots.set(key, slot);
    this.count++;
    this.bytes += entry.payload.length;
    this.deps.metrics?.written(functionName, entry.payload.length);
  }

  /** Forgets slots from the oldest on while `stale` holds, keeping the counts. */
  private forget(stale: (slot: Slot) => boolean): void {
    this.slots.deleteWhile((slot) => {
      if (!stale(slot)) return false;
      for (const entry of slot.entries) this.release(slot.functionName, entry);
      return true;
    });
  }

  private release(functionName: string, entry: Entry): void {
    this.count--;
    this.bytes -= entry.payload.length;
    this.deps.metrics?.deleted(functionName, entry.payload.length);
  }
}

/**
 * `runner` behind a response cache (--enable-function-response-cache) bounded by maxTtlMs (--xfn-cache-max-ttl), or
 * `runner` itself when the cache is off.
 */
export function withResponseCache(
  runner: FunctionRunner,
  cache: { enabled: boolean; maxTtlMs: number; metrics?: CacheMetrics },
): FunctionRunner {
  return cache.enabled ? new CachingRunner(runner, { maxTtlMs: cache.maxTtlMs, metrics: cache.metrics }) : runner;
}
