// Gives the memory of a burst of work back to the OS once the process settles. V8 keeps the heap it grew to while
// 10,000 XRs converged (old space committed at ~3x the live set, a 128 MiB young generation) and only sometimes
// shrinks it on its own, so the settled RSS depended on luck. When the heap holds much more than it uses, one full
// compacting collection runs: a pause of a few hundred milliseconds at 10,000 XRs. It runs when the event loop has
// been nearly idle for a whole check interval, or, with more to give back, when the process is settled but not idle:
// functions that return a response TTL requeue every XR once per TTL, so a platform of 5,000 XRs calling a function
// with a 60 s TTL is never idle, and its heap stayed at 1.5 times the live set plus V8's unreleased pages (RSS 507
// MiB at rest, 328-400 MiB with compactions while settled and 1.25x heap growth, bench/RESULTS.md). A burst (the
// loop busier than busyUtilization) is never paused for: its heap would grow straight back.
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Counter } from 'prom-client';
import { monotonicClock, type Clock, type Timer } from '../base/index.js';
import type { Logger } from './logger.js';
import type { Runnable } from '../lifecycle/index.js';

const MIB = 1024 * 1024;

/** When a compaction is worth it. */
export interface CompactionPolicy {
  /** Event-loop utilization over the last interval at or below which the process counts as idle. */
  idleUtilization: number;
  /** Committed but unused heap below which an idle process has nothing worth giving back. */
  minSlackBytes: number;
  /** Event-loop utilization above which the process is in a burst of work and never paused for a compaction. */
  busyUtilization: number;
  /** Committed but unused heap worth a pause in a process that is settled (not idle, not busy). */
  settledMinSlackBytes: number;
  /** The least time between two compactions, so a process that keeps growing back pays at most this often. */
  minGapMs: number;
}

export const DEFAULT_COMPACTION_POLICY: CompactionPolicy = {
  idleUtilization: 0.05,
  minSlackBytes: 32 * MIB,
  busyUtilization: 0.5,
  settledMinSlackBytes: 64 * MIB,
  minGapMs: 60_000,
};

/** Why a compaction runs: start-up just done, an idle process, or a settled one (steady work, no burst). */
export type CompactionReason = 'start-up done' | 'idle' | 'settled';

export interface HeapReading {
  /** Event-loop utilization (0-1) since the previous reading. */
  utilization: number;
  committedBytes: number;
  usedBytes: number;
  /** Since the last compaction; Infinity before the first. */
  sinceLastMs: number;
}

/**
 * Whether to compact now, and why: not too soon after the last time, and either idle with enough slack or settled
 * with more. Undefined: not now.
 */
export function compactionReason(
  reading: HeapReading,
  policy: CompactionPolicy = DEFAULT_COMPACTION_POLICY,
): Exclude<CompactionReason, 'start-up done'> | undefined {
  if (reading.sinceLastMs < policy.minGapMs) return undefined;
  const slack = reading.committedBytes - reading.usedBytes;
  if (reading.utilization <= policy.idleUtilization && slack >= policy.minSlackBytes) return 'idle';
  if (reading.utilization <= policy.busyUtilization && slack >= policy.settledMinSlackBytes) return 'settled';
  return undefined;
}

/** What the compactor reads and does; injected so tests drive it without a real heap. */
export interface HeapAccess {
  /** Event-loop utilization since the previous call (the first call measures from process start). */
  utilization(): number;
  heap(): { committedBytes: number; usedBytes: number };
  /** A full, compacting collection that also shrinks the young generation. */
  compact(): void;
}

/** The process's own heap. */
export function processHeap(): HeapAccess {
  let last: EventLoopUtilization | undefined;
  let gc: ((options: object) => void) | undefined;
  return {
    utilization() {
      const current = performance.eventLoopUtilization();
      const delta = last === undefined ? current : performance.eventLoopUtilization(current, last);
      last = current;
      return delta.utilization;
    },
    heap() {
      const stats = getHeapStatistics();
      return { committedBytes: stats.total_heap_size, usedBytes: stats.used_heap_size };
    },
    compact() {
      // Node offers no API to request a collection. Setting --expose-gc at run time and reading gc from a new
      // context is the usual way around that (Node documents setFlagsFromString, not this use of it; the test
      // suite checks it works on the pinned Node). 'last-resort' is the collection V8 itself runs under memory
      // pressure: it compacts old space and gives back the unused young generation, which a plain gc() keeps.
      if (gc === undefined) {
        setFlagsFromString('--expose-gc');
        gc = runInNewContext('gc') as (options: object) => void;
      }
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    },
  };
}

export interface IdleHeapCompactorOptions {
  log: Logger;
  /** compositor_idle_heap_compactions_total{reason}. */
  compactions?: Counter<'reason'>;
  intervalMs?: number;
  policy?: CompactionPolicy;
  access?: HeapAccess;
  /** The check interval and the time since the last compaction; the monotonic clock unless given. */
  clock?: Clock;
}

const DEFAULT_INTERVAL_MS = 10_000;

/** Checks every interval and compacts the heap when compactionReason() says so (--idle-heap-compaction). */
export class IdleHeapCompactor implements Runnable {
  readonly name = 'idle-heap-compactor';
  private timer: Timer | undefined;
  private lastAt = -Infinity;
  private readonly access: HeapAccess;
  private readonly clock: Clock;

  constructor(private readonly options: IdleHeapCompactorOptions) {
    this.access = options.access ?? processHeap();
    this.clock = options.clock ?? monotonicClock;
  }

  /**
   * Compacts once at once, then checks every interval. The manager starts this runnable after the engine, whose start
   * resolves once its caches have synced: start-up's garbage (the CRD documents, every informer's first list) is dead
   * by then, but it has grown the young generation and sits in the old one, where V8 would keep it until a burst of
   * work forced a collection. Measured at 1,000 XRs: RSS before the first XR 140 -> 108 MiB.
   */
  start(): Promise<void> {
    this.compact('start-up done');
    this.access.utilization(); // idleness is measured from here, the compaction's pause left out
    this.timer = this.clock.setInterval(() => this.check(), this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    return Promise.resolve();
  }

  /** One check; public so tests can drive it without timers. Returns whether it compacted. */
  check(): boolean {
    const { access } = this;
    const now = this.clock.now();
    const before = access.heap();
    const reading = { utilization: access.utilization(), ...before, sinceLastMs: now - this.lastAt };
    const why = compactionReason(reading, this.options.policy);
    if (why === undefined) return false;
    this.compact(why);
    return true;
  }

  private compact(why: CompactionReason): void {
    const { access } = this;
    const startedAt = this.clock.now();
    const before = access.heap();
    access.compact();
    const after = access.heap();
    this.lastAt = this.clock.now();
    this.options.compactions?.inc({ reason: why });
    this.options.log.info(
      {
        why,
        committedMiB: Math.round(before.committedBytes / MIB),
        usedMiB: Math.round(before.usedBytes / MIB),
        committedAfterMiB: Math.round(after.committedBytes / MIB),
        pauseMs: Math.round(this.lastAt - startedAt),
      },
      'compacted the heap',
    );
  }
}
