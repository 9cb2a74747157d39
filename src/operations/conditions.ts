// The conditions and event reasons of the ops controllers, as Crossplane v2 names them
// (apis/ops/v1alpha1/conditions.go, internal/controller/ops/*/reconciler.go).
import type { ConditionInput } from '../controller/index.js';

export const SUCCEEDED = 'Succeeded';
export const VALID_PIPELINE = 'ValidPipeline';
export const SCHEDULING = 'Scheduling';
export const WATCHING = 'Watching';

export const REASON_PIPELINE_RUNNING = 'PipelineRunning';
export const REASON_PIPELINE_SUCCESS = 'PipelineSuccess';
export const REASON_PIPELINE_ERROR = 'PipelineError';

/** Succeeded Unknown: the pipeline is running (or will run again after a failure). */
export const RUNNING: ConditionInput = { type: SUCCEEDED, status: 'Unknown', reason: REASON_PIPELINE_RUNNING };
/** Succeeded True: the pipeline ran to completion and everything it returned was applied. Terminal. */
export const COMPLETE: ConditionInput = { type: SUCCEEDED, status: 'True', reason: REASON_PIPELINE_SUCCESS };
/** Succeeded False: the Operation will not run again. Terminal. */
export function failed(message: string): ConditionInput {
  return { type: SUCCEEDED, status: 'False', reason: REASON_PIPELINE_ERROR, message };
}

export const VALID: ConditionInput = { type: VALID_PIPELINE, status: 'True', reason: 'ValidPipeline' };
export function missingCapabilities(message: string): ConditionInput {
  return { type: VALID_PIPELINE, status: 'False', reason: 'MissingCapabilities', message };
}

export const SCHEDULE_ACTIVE: ConditionInput = { type: SCHEDULING, status: 'True', reason: 'ScheduleActive' };
export const SCHEDULE_PAUSED: ConditionInput = { type: SCHEDULING, status: 'False', reason: 'SchedulePaused' };
export function scheduleInvalid(message: string): ConditionInput {
  return { type: SCHEDULING, status: 'False', reason: 'ScheduleInvalid', message };
}

export const WATCH_ACTIVE: ConditionInput = { type: WATCHING, status: 'True', reason: 'WatchActive' };
export const WATCH_PAUSED: ConditionInput = { type: WATCHING, status: 'False', reason: 'WatchPaused' };
export function watchFailed(message: string): ConditionInput {
  return { type: WATCHING, status: 'False', reason: 'WatchFailed', message };
}

/** Event reasons of the three controllers, Crossplane's strings. */
export const EVENT_REASONS = {
  runPipelineStep: 'RunPipelineStep',
  maxFailures: 'MaxFailures',
  functionInvocation: 'FunctionInvocation',
  invalidOutput: 'InvalidOutput',
  invalidResource: 'InvalidResource',
  invalidPipeline: 'InvalidPipeline',
  bootstrapRequirements: 'BootstrapRequirements',
  invalidSchedule: 'InvalidSchedule',
  listOperations: 'ListOperations',
  garbageCollectOperations: 'GarbageCollectOperations',
  replaceRunningOperation: 'ReplaceRunningOperation',
  createOperation: 'CreateOperation',
  establishWatched: 'EstablishWatched',
  terminateWatched: 'TerminateWatched',
  /** compositor's own: a run that started and never recorded its end is not run a second time. */
  interruptedRun: 'InterruptedRun',
} as const;
