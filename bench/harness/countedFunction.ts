// The benchmark side of a function's call counter (harness/callCounter.ts): starts a function written with the
// TypeScript SDK as its own process, with a counter endpoint on a free loopback port, and reads the RunFunction calls
// it has served from there.
import { freePort } from '../../e2e/controlplane/ports.js';
import { startFunction, type FunctionProcess } from '../../test/functions/process.js';

export interface CountedFunction {
  process: FunctionProcess;
  /** RunFunction calls served since the process started. */
  calls(): Promise<number>;
}

/** Runs `script` (a function's main.ts) with `args` besides its address and counter address; waits until it listens. */
export async function startCountedFunction(script: string, args: readonly string[] = []): Promise<CountedFunction> {
  const counter = `127.0.0.1:${await freePort()}`;
  const process = await startFunction(script, undefined, '127.0.0.1', [...args, '--counter-address', counter]);
  return {
    process,
    calls: async () => {
      const response = await fetch(`http://${counter}/`, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`cannot read the calls of ${script}: ${counter} answered ${response.status}`);
      const body = (await response.json()) as { calls: number };
      return body.calls;
    },
  };
}
