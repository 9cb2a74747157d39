// The function side of a benchmark function's call counter: given `--counter-address <host:port>`, the function
// process serves GET / there with {"calls": n}, the RunFunction calls it has served so far, so a benchmark counts
// gRPC calls where they land (harness/countedFunction.ts reads it). Loaded by the function processes, so it imports
// nothing of the benchmark's side.
import { createServer } from 'node:http';
import type { ComposeFunction } from '@crossplane-org/function-sdk-typescript';

/** `--<flag> <value>` or `--<flag>=<value>` taken out of `argv`; the last one given wins. */
export function takeFlag(argv: readonly string[], flag: string): { value: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === `--${flag}`) value = argv[++i];
    else if (arg.startsWith(`--${flag}=`)) value = arg.slice(flag.length + 3);
    else rest.push(arg);
  }
  return { value, rest };
}

function serveCount(address: string, calls: () => number): void {
  const at = address.lastIndexOf(':');
  if (at < 0) throw new Error(`cannot serve the call counter: address "${address}" has no port`);
  createServer((_, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ calls: calls() }));
  }).listen(Number(address.slice(at + 1)), address.slice(0, at));
}

/**
 * `compose` counting its calls, served at `--counter-address` when `argv` has it, and the arguments left for the SDK.
 *
 * @example
 * const { compose, rest } = countingCalls(myCompose, process.argv.slice(2));
 * serve(compose, { argv: rest });
 */
export function countingCalls(
  compose: ComposeFunction,
  argv: readonly string[],
): { compose: ComposeFunction; rest: string[] } {
  let calls = 0;
  const { value: address, rest } = takeFlag(argv, 'counter-address');
  if (address !== undefined) serveCount(address, () => calls);
  return {
    compose: (req, rsp, logger) => {
      calls++;
      return compose(req, rsp, logger);
    },
    rest,
  };
}
