// How far V8 lets the heap grow past what survived the last full collection. V8 picks the factor itself, up to 4x
// while allocation is fast, which is what a burst of new XRs looks like: the garbage of reconciles in flight (request
// and response bodies, drafts of objects) outlives two scavenges, lands in old space and is collected only once old
// space reaches up to four times the live heap. The RSS of such a burst was measured at 2.5x to 5x the live heap it
// left behind; with a fixed 1.5x the same burst took two thirds of the memory for a few percent more CPU
// (bench/RESULTS.md). V8 reads the flag whenever it sets the next limit, so setting it at start-up takes effect.
import { setFlagsFromString } from 'node:v8';

const V8_FLAG = '--heap-growing-percent';

/**
 * The V8 flag to set for `percent`, or undefined to leave V8's own factor: for 0, and when Node was started with the
 * V8 flag itself (on its command line or in NODE_OPTIONS), which then wins.
 */
export function heapGrowthFlag(
  percent: number,
  node: { execArgv: readonly string[]; nodeOptions?: string },
): string | undefined {
  if (percent <= 0) return undefined;
  const given = [...node.execArgv, ...(node.nodeOptions ?? '').split(/\s+/)];
  if (given.some((arg) => arg.replace(/_/g, '-').startsWith(V8_FLAG))) return undefined;
  return `${V8_FLAG}=${percent}`;
}

/** Sets the heap growth factor of this process (--heap-growth-percent); returns the V8 flag set, if any. */
export function limitHeapGrowth(percent: number): string | undefined {
  const flag = heapGrowthFlag(percent, { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS });
  if (flag !== undefined) setFlagsFromString(flag);
  return flag;
}
