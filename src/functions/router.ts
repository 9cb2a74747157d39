// Chooses, per call, between an in-process built-in and the remote runner, by the one decision of
// builtinRuntime.ts. The decision is remembered per Function until its package or annotation changes, so the hot
// path of a built-in reads a map, and `onChoice` hears of each Function's path once, not once per call.
import {
  BUILTIN_ANNOTATION,
  chooseRuntime,
  DEFAULT_BUILTIN_POLICY,
  type BuiltinPolicy,
  type FunctionLike,
  type RuntimeChoice,
} from './builtinRuntime.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionRequest, RunFunctionResponse } from './types.js';

/** A function run in-process with the protocol's semantics. */
export type BuiltinFunction = (request: RunFunctionRequest) => RunFunctionResponse | Promise<RunFunctionResponse>;

export interface RouterDeps {
  builtins: ReadonlyMap<string, BuiltinFunction>;
  /** The Function a call names, or undefined to send the call to `remote` (unknown, or a development target). */
  functionOf: (functionName: string) => Promise<FunctionLike | undefined>;
  remote: FunctionRunner;
  /** --builtin-functions and --builtin-function-registries; default on, upstream's locations. */
  policy?: BuiltinPolicy;
  /** Told which way a Function runs the first time it is called, and again whenever that changes. */
  onChoice?: (functionName: string, choice: RuntimeChoice) => void;
  /**
   * Drop the TTL a built-in returns (the SDK default of 60 s). A built-in is a pure function of its request and every
   * input of a realtime XR arrives as a watch event, so its TTL would only requeue the XR to compute the same answer
   * again, and keep that answer cached; the engine sets it. Left off, responses are exactly the function's.
   */
  dropBuiltinTtl?: boolean;
}

export class RoutingRunner implements FunctionRunner {
  /** Per Function: the package and annotation the choice was made for, and the choice. */
  private readonly choices = new Map<string, { key: string; choice: RuntimeChoice }>();

  constructor(private readonly deps: RouterDeps) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const builtin = await this.builtinFor(call.functionName);
    if (!builtin) return this.deps.remote.run(call);
    const response = await builtin(call.request);
    if (this.deps.dropBuiltinTtl !== true || response.meta?.ttlMs === undefined) return response;
    // Deleted rather than copied around: copying would read the tag, which is digested only when read (requestTag.ts).
    delete response.meta.ttlMs;
    return response;
  }

  private async builtinFor(functionName: string): Promise<BuiltinFunction | undefined> {
    const fn = await this.deps.functionOf(functionName);
    if (fn === undefined) return undefined;
    const name = this.choiceFor(functionName, fn).builtin;
    return name === undefined ? undefined : this.deps.builtins.get(name);
  }

  private choiceFor(functionName: string, fn: FunctionLike): RuntimeChoice {
    const key = JSON.stringify([fn.spec?.package, fn.metadata.annotations?.[BUILTIN_ANNOTATION]]);
    const known = this.choices.get(functionName);
    if (known?.key === key) return known.choice;
    const choice = chooseRuntime(fn, this.deps.policy ?? DEFAULT_BUILTIN_POLICY);
    this.choices.set(functionName, { key, choice });
    if (known?.choice.message !== choice.message) this.deps.onChoice?.(functionName, choice);
    return choice;
  }
}
