// What a pipeline run tells the composite reconciler besides desired state: events and conditions for the XR,
// mapped from function results and conditions as Crossplane maps them.
import type { Condition, Result, Severity, Target } from './types.js';

export const DEFAULT_RESULT_REASON = 'ComposeResources';
/** Condition types only compositor sets; a function's conditions of these types are dropped. */
export const SYSTEM_CONDITION_TYPES: ReadonlySet<string> = new Set(['Synced', 'Ready', 'Responsive']);

export interface PipelineEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Composite or CompositeAndClaim; the claim copy carries the message without the step prefix. */
  target: 'Composite' | 'CompositeAndClaim';
  step: string;
  /** The function's own message, without the step prefix: what a claim's copy of the event and render show. */
  detail: string;
  severity: Severity;
}

export interface PipelineCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
  target: 'Composite' | 'CompositeAndClaim';
}

function target(t: Target | undefined): PipelineEvent['target'] {
  return t === 'TARGET_COMPOSITE_AND_CLAIM' ? 'CompositeAndClaim' : 'Composite';
}

/** Maps a NORMAL, WARNING or UNSPECIFIED result to an event; FATAL results are the caller's to handle. */
export function resultToEvent(step: string, result: Result): PipelineEvent {
  const reason = result.reason ?? DEFAULT_RESULT_REASON;
  const detail = result.message ?? '';
  const severity = result.severity ?? 'SEVERITY_UNSPECIFIED';
  if (severity === 'SEVERITY_NORMAL' || severity === 'SEVERITY_WARNING') {
    const type = severity === 'SEVERITY_NORMAL' ? 'Normal' : 'Warning';
    const message = `Pipeline step "${step}": ${detail}`;
    return { type, reason, message, target: target(result.target), step, detail, severity };
  }
  // Unknown severities are warned about on the XR only.
  return {
    type: 'Warning',
    reason,
    message: `Pipeline step "${step}" returned a result of unknown severity (assuming warning): ${detail}`,
    target: 'Composite',
    step,
    detail,
    severity,
  };
}

const STATUS: Record<string, PipelineCondition['status']> = {
  STATUS_CONDITION_TRUE: 'True',
  STATUS_CONDITION_FALSE: 'False',
};

/** Maps a function condition; undefined for the system types functions may not set. */
export function toCondition(condition: Condition): PipelineCondition | undefined {
  const type = condition.type ?? '';
  if (type === '' || SYSTEM_CONDITION_TYPES.has(type)) return undefined;
  const mapped: PipelineCondition = {
    type,
    status: STATUS[condition.status ?? ''] ?? 'Unknown',
    reason: condition.reason ?? '',
    target: target(condition.target),
  };
  if (condition.message !== undefined) mapped.message = condition.message;
  return mapped;
}
