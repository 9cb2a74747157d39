import type { Histogram } from 'prom-client';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionResponse } from './types.js';

/** Times every call into function_run_seconds{function,result}; result is success or error (it could not run). */
export class MeasuredRunner implements FunctionRunner {
  constructor(
    private readonly inner: FunctionRunner,
    private readonly seconds: Histogram<'function' | 'result'>,
  ) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const end = this.seconds.startTimer({ function: call.functionName });
    try {
      const response = await this.inner.run(call);
      end({ result: 'success' });
      return response;
    } catch (err) {
      end({ result: 'error' });
      throw err;
    }
  }
}
