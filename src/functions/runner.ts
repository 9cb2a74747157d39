// The contract every way of running a function satisfies: one RunFunction call. Implementations: the gRPC runner
// (grpcRunner.ts), the in-process built-ins (builtin/), and the layers the pipeline stacks on top (cache,
// requirements loop).
import type { RunFunctionRequest, RunFunctionResponse, StepRequirements } from './types.js';

export interface FunctionCall {
  /** The Function's metadata.name (the step's functionRef.name). */
  functionName: string;
  /** The pipeline step, for error messages; absent outside a pipeline. */
  step?: string;
  request: RunFunctionRequest;
  signal?: AbortSignal;
  /** The step's own deadline (its `timeout`); the runner's default, --function-timeout, when absent. */
  timeoutMs?: number;
  /** The step's declared requirements, which the requirements loop fetches and sends on the first call. */
  bootstrap?: StepRequirements;
}

export interface FunctionRunner {
  /** Resolves to the function's response; rejects with a FunctionCallError when the function cannot be called. */
  run(call: FunctionCall): Promise<RunFunctionResponse>;
}
