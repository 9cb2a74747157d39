// Typed errors of the function runtime. Each carries what failed, so callers test instanceof and fields rather
// than message text.
import type { PipelineCondition, PipelineEvent } from './outcome.js';

/** A function could not be called, or did not answer in time. */
export class FunctionCallError extends Error {
  constructor(
    readonly functionName: string,
    readonly step: string | undefined,
    detail: string,
    options?: { cause?: unknown; code?: number },
  ) {
    const where = step === undefined ? '' : ` for pipeline step "${step}"`;
    super(`cannot run function "${functionName}"${where}: ${detail}`, { cause: options?.cause });
    this.name = 'FunctionCallError';
    this.code = options?.code;
  }
  /** The gRPC status code when the failure came from the transport. */
  readonly code: number | undefined;
}

/** A step returned a SEVERITY_FATAL result: the pipeline stops and nothing may be applied. */
export class PipelineFatalError extends Error {
  constructor(
    readonly step: string,
    readonly fatalMessage: string,
    /** Events and conditions gathered up to and including the fatal step; callers still emit them. */
    readonly partial: { events: readonly PipelineEvent[]; conditions: readonly PipelineCondition[] },
  ) {
    super(`pipeline step "${step}" returned a fatal result: ${fatalMessage}`);
    this.name = 'PipelineFatalError';
  }
}
