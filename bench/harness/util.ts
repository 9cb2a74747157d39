// Small pieces every benchmark uses: sleeping, percentiles, polling until a check holds, and the RSS of a process
// tree read from /proc.
import { readdirSync, readFileSync } from 'node:fs';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The p-th percentile (0..100) of `values` by nearest rank; null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? null;
}

/** Latency samples summed up: those that timed out (undefined) counted apart from the percentiles of the rest. */
export interface LatencyFigures {
  samples: number;
  timedOut: number;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export function latencyFigures(samples: readonly (number | undefined)[]): LatencyFigures {
  const ok = samples.filter((s): s is number => s !== undefined).map((s) => round(s, 1));
  return {
    samples: ok.length,
    timedOut: samples.length - ok.length,
    p50Ms: percentile(ok, 50),
    p95Ms: percentile(ok, 95),
    p99Ms: percentile(ok, 99),
    maxMs: ok.length === 0 ? null : Math.max(...ok),
  };
}

/** A numeric command-line value, or undefined when the option was not given. */
export function optionalNumber(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * Calls `check` every `intervalMs` until it returns a value other than undefined; throws after `timeoutMs` with the
 * last thing `check` threw or `describe` returned, so a timeout says where things were stuck.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${options.timeoutMs}ms waiting for ${what}${detail}`, { cause: last });
    }
    await sleep(options.intervalMs ?? 100);
  }
}

/** VmRSS of one process in bytes, 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** The parent pid of every live process, read once from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) may hold spaces and parentheses; the fields after the last ')' are plain.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(Number(entry), ppid);
    } catch {
      // Exited while we read.
    }
  }
  return map;
}

/** A process and all its live descendants (a controller started through a shell is a tree). */
function processTree(pid: number): Set<number> {
  const ppids = parents();
  const tree = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of ppids) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  return tree;
}

/** RSS of a process and all its descendants, in bytes. */
export function treeRss(pid: number): number {
  return [...processTree(pid)].reduce((total, p) => total + rssOf(p), 0);
}

/** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/**
 * CPU seconds (user and system) one process has used so far, its waited-for children included (cutime, cstime); 0
 * when it is gone.
 */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name: state is field 3, so utime (14), stime, cutime and cstime (17) are 11 to 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((total, ticks) => total + Number(ticks), 0) / USER_HZ;
  } catch {
    return 0;
  }
}

/** CPU seconds a process and its live descendants have used so far. */
export function treeCpuSeconds(pid: number): number {
  return [...processTree(pid)].reduce((total, p) => total + processCpuSeconds(p), 0);
}

/** Samples treeRss(pid) every `intervalMs` and keeps the peak until stopped. */
export class RssSampler {
  private peakBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: () => number | undefined,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.timer = setInterval(() => {
      this.sample();
    }, this.intervalMs);
    return this;
  }

  sample(): number {
    const pid = this.pid();
    const bytes = pid === undefined ? 0 : treeRss(pid);
    this.peakBytes = Math.max(this.peakBytes, bytes);
    return bytes;
  }

  get peak(): number {
    return this.peakBytes;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export const MIB = 2 ** 20;
