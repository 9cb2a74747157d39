// A FunctionRunner for unit tests: answers each call with what the test's `respond` returns, and records the calls.
import type { FunctionCall, FunctionRunner, RunFunctionResponse } from '../../../src/functions/index.js';

export class FakeRunner implements FunctionRunner {
  readonly calls: FunctionCall[] = [];

  constructor(public respond: (call: FunctionCall) => RunFunctionResponse | Promise<RunFunctionResponse>) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    this.calls.push(call);
    return this.respond(call);
  }
}
