// bench:scale's two functions over gRPC (--functions grpc): the stand-ins of bench/functions/scale-fns, one process per
// function as the real ones run, each counting the RunFunction calls it serves. The Functions of the scale API are
// pointed at them through compositor's endpoint annotation (api.ts installApi); another controller finds them through
// `endpoints`, which the benchmark passes to it as environment variables and prints. Their RSS is sampled apart from
// the controller's: they are not in its process tree.
import { fileURLToPath } from 'node:url';
import { AUTO_READY_FUNCTION, PT_FUNCTION } from '../../test/integration/engine.js';
import { startCountedFunction, type CountedFunction } from './countedFunction.js';
import { MIB, round, RssSampler, treeRss } from './util.js';

const SCALE_FNS = fileURLToPath(new URL('../functions/scale-fns/main.ts', import.meta.url));

/** The Functions bench:scale's Composition names, in pipeline order. */
export const STAND_IN_FUNCTIONS: readonly string[] = [PT_FUNCTION, AUTO_READY_FUNCTION];

/** One figure per Function name. */
export type PerFunction = Record<string, number>;

/** The environment variable that carries a Function's endpoint to --controller-cmd: FUNCTION_AUTO_READY_ENDPOINT. */
export function endpointVariable(functionName: string): string {
  return `${functionName.toUpperCase().replaceAll('-', '_')}_ENDPOINT`;
}

interface Running {
  fn: CountedFunction;
  rss: RssSampler;
}

export class StandIns {
  private constructor(private readonly running: ReadonlyMap<string, Running>) {}

  /** Starts one process per Function; none is left running when one fails to start. */
  static async start(): Promise<StandIns> {
    const started = await Promise.allSettled(
      STAND_IN_FUNCTIONS.map((name) => startCountedFunction(SCALE_FNS, ['--function', name])),
    );
    const running = new Map<string, Running>();
    for (const [i, result] of started.entries()) {
      if (result.status === 'rejected') continue;
      const fn = result.value;
      running.set(STAND_IN_FUNCTIONS[i] ?? '', { fn, rss: new RssSampler(() => fn.process.pid) });
    }
    const stand = new StandIns(running);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed !== undefined) {
      await stand.stop();
      throw new Error('cannot start the function stand-ins', { cause: failed.reason });
    }
    return stand;
  }

  /** The gRPC target of each Function, e.g. 127.0.0.1:40123. */
  get endpoints(): Record<string, string> {
    return this.each((r) => r.fn.process.endpoint);
  }

  /** The process of each Function, for CPU marks. */
  get pids(): Record<string, number | undefined> {
    return this.each((r) => r.fn.process.pid);
  }

  /** The endpoints as environment variables for another controller (endpointVariable). */
  get environment(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.endpoints).map(([name, e]) => [endpointVariable(name), e]));
  }

  /** RunFunction calls each has served so far. */
  async calls(): Promise<PerFunction> {
    const entries = await Promise.all([...this.running].map(async ([name, r]) => [name, await r.fn.calls()] as const));
    return Object.fromEntries(entries);
  }

  /** Samples each process's RSS every 250 ms for its peak, until stopSampling. */
  startSampling(): void {
    for (const r of this.running.values()) r.rss.start();
  }

  stopSampling(): void {
    for (const r of this.running.values()) r.rss.stop();
  }

  /** Each process's peak RSS while sampled, in MiB. */
  peakRssMiB(): PerFunction {
    return this.each((r) => round(r.rss.peak / MIB, 1));
  }

  /** Each process's RSS now, in MiB. */
  rssMiB(): PerFunction {
    // treeRss(0) would be every process's: pid 0 is the parent of init.
    return this.each((r) => round((r.fn.process.pid === undefined ? 0 : treeRss(r.fn.process.pid)) / MIB, 1));
  }

  async stop(): Promise<void> {
    this.stopSampling();
    await Promise.all([...this.running.values()].map((r) => r.fn.process.stop()));
  }

  private each<T>(value: (r: Running) => T): Record<string, T> {
    return Object.fromEntries([...this.running].map(([name, r]) => [name, value(r)]));
  }
}

/** `to - from` of each Function. */
export function callsBetween(from: PerFunction, to: PerFunction): PerFunction {
  return Object.fromEntries(Object.entries(to).map(([name, n]) => [name, n - (from[name] ?? 0)]));
}

/** Each figure divided by `by`, two decimals. */
export function dividedBy(figures: PerFunction, by: number): PerFunction {
  return Object.fromEntries(Object.entries(figures).map(([name, n]) => [name, round(n / by, 2)]));
}
