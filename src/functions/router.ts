// Chooses, per Function, between an in-process built-in and the gRPC runner. A Function uses a built-in when its
// spec.package names one (any registry, any tag) and built-ins are enabled (--builtin-functions).
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionRequest, RunFunctionResponse } from './types.js';

/** A function run in-process with the protocol's semantics. */
export type BuiltinFunction = (request: RunFunctionRequest) => RunFunctionResponse | Promise<RunFunctionResponse>;

/**
 * The built-in's name when a package reference names one.
 *
 * @example builtinNameOf('xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0') // 'function-auto-ready'
 */
export function builtinNameOf(pkg: string, builtins: ReadonlySet<string>): string | undefined {
  const withoutDigest = pkg.split('@')[0] ?? '';
  const last = withoutDigest.split('/').pop() ?? '';
  const repo = last.split(':')[0] ?? '';
  return builtins.has(repo) ? repo : undefined;
}

export interface RouterDeps {
  builtins: ReadonlyMap<string, BuiltinFunction>;
  /** The package of a Function (spec.package), or undefined when unknown. */
  packageOf: (functionName: string) => Promise<string | undefined>;
  remote: FunctionRunner;
  /** --builtin-functions; default true. */
  enabled?: boolean;
  /**
   * Drop the TTL a built-in returns (the SDK default of 60 s). A built-in is a pure function of its request and every
   * input of a realtime XR arrives as a watch event, so its TTL would only requeue the XR to compute the same answer
   * again, and keep that answer cached; the engine sets it. Left off, responses are exactly the function's.
   */
  dropBuiltinTtl?: boolean;
}

export class RoutingRunner implements FunctionRunner {
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
    if (this.deps.enabled === false) return undefined;
    const pkg = await this.deps.packageOf(functionName);
    if (pkg === undefined) return undefined;
    const name = builtinNameOf(pkg, new Set(this.deps.builtins.keys()));
    return name === undefined ? undefined : this.deps.builtins.get(name);
  }
}
