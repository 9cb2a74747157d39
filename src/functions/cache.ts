// The response cache (--enable-function-response-cache, on by default): a function's response is reused for an
// identical request until its TTL ends. Keyed by function name and a digest of the request; responses without a TTL
// are never stored. Crossplane's cache (off by default there) keeps the same entries on disk; this one is in memory.
import { approximateSize, LruMap, systemClock, type Clock } from '../base/index.js';
import { digest } from './hash.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionResponse } from './types.js';

export interface CacheDeps {
  clock?: Pick<Clock, 'now'>;
  /**
   * Upper bound on how long any response is kept (--xfn-cache-max-ttl). Default 24h; 0 means no bound, so the
   * function's TTL alone decides, as Crossplane's cache reads its --xfn-cache-max-ttl 0.
   */
  maxTtlMs?: number;
  /**
   * Entries kept at most; when full, the entries stored first go first, and expired ones among them before the
   * oldest live one. Default 10000.
   */
  maxEntries?: number;
  /**
   * About how many bytes the stored responses may take together (approximateSize); when full, entries go as above.
   * A response larger than this on its own is not stored. Default 256 MiB: a function may answer with up to 4 MiB,
   * and 10,000 of those would be 40 GiB.
   */
  maxBytes?: number;
}

const DEFAULT_MAX_TTL_MS = 86_400_000;
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** The response's TTL, at most maxTtlMs unless that is 0 (no bound). */
function clampTtl(ttlMs: number, maxTtlMs: number): number {
  return maxTtlMs > 0 ? Math.min(ttlMs, maxTtlMs) : ttlMs;
}

interface Entry {
  deadline: number;
  response: RunFunctionResponse;
  bytes: number;
}

export class CachingRunner implements FunctionRunner {
  /** By key, in the order they were stored: a hit does not make an entry live longer. */
  private readonly entries: LruMap<string, Entry>;
  private readonly clock: Pick<Clock, 'now'>;
  /**
   * Functions whose last answer had no TTL (the built-ins always, as the engine drops theirs): their calls are not
   * looked up, which spares digesting every request (the XR and all its observed resources) for a lookup that cannot
   * hit. A function that answers with a TTL again is looked up again from its next call on.
   */
  private readonly withoutTtl = new Set<string>();
  /** approximateSize of every stored response, together. */
  private bytes = 0;

  constructor(
    private readonly inner: FunctionRunner,
    private readonly deps: CacheDeps = {},
  ) {
    this.entries = new LruMap({
      max: deps.maxEntries ?? 10_000,
      onEvict: (_key, entry) => {
        this.bytes -= entry.bytes;
      },
    });
    this.clock = deps.clock ?? systemClock;
  }

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const { functionName } = call;
    // Digested before the call: the function may not leave the request as it found it.
    const key = this.withoutTtl.has(functionName) ? undefined : `${functionName}/${digest(call.request)}`;
    const hit = key === undefined ? undefined : this.entries.peek(key);
    if (hit !== undefined && hit.deadline > this.clock.now()) return structuredClone(hit.response);
    const response = await this.inner.run(call);
    const ttl = clampTtl(response.meta?.ttlMs ?? 0, this.deps.maxTtlMs ?? DEFAULT_MAX_TTL_MS);
    if (ttl <= 0) this.withoutTtl.add(functionName);
    else this.withoutTtl.delete(functionName);
    if (ttl > 0 && key !== undefined) {
      const bytes = approximateSize(response);
      this.store(key, { deadline: this.clock.now() + ttl, response: structuredClone(response), bytes });
    }
    return response;
  }

  /** Number of stored entries, expired or not; informational only. */
  get size(): number {
    return this.entries.size;
  }

  /** About how many bytes the stored responses take; informational only. */
  get sizeBytes(): number {
    return this.bytes;
  }

  /**
   * Stores an entry; when full (entries or bytes), expired entries at the front go first, then the oldest. A
   * response past the whole byte budget is not stored at all.
   */
  private store(key: string, entry: Entry): void {
    const maxBytes = this.deps.maxBytes ?? DEFAULT_MAX_BYTES;
    if (entry.bytes > maxBytes) return;
    const previous = this.entries.peek(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    const full = (): boolean =>
      this.entries.size >= (this.deps.maxEntries ?? 10_000) || this.bytes + entry.bytes > maxBytes;
    if (full()) {
      const now = this.clock.now();
      this.forget((e) => e.deadline <= now);
    }
    // Oldest first, until the new entry fits the byte budget (the entry count the map bounds itself).
    this.forget(() => this.bytes + entry.bytes > maxBytes);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }

  /** Forgets entries from the oldest on while `stale` holds, keeping the byte count. */
  private forget(stale: (entry: Entry) => boolean): void {
    this.entries.deleteWhile((entry) => {
      if (!stale(entry)) return false;
      this.bytes -= entry.bytes;
      return true;
    });
  }
}

/**
 * `runner` behind a response cache (--enable-function-response-cache) bounded by maxTtlMs (--xfn-cache-max-ttl), or
 * `runner` itself when the cache is off.
 */
export function withResponseCache(
  runner: FunctionRunner,
  cache: { enabled: boolean; maxTtlMs: number },
): FunctionRunner {
  return cache.enabled ? new CachingRunner(runner, { maxTtlMs: cache.maxTtlMs }) : runner;
}
