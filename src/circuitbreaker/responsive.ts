import type { BreakerState } from './breaker.js';

/** The XR's Responsive condition, shaped like the composite module's Condition so it can be set directly. */
export interface ResponsiveCondition {
  type: 'Responsive';
  status: 'True' | 'False';
  reason: 'WatchCircuitClosed' | 'WatchCircuitOpen';
  message?: string;
}

/**
 * Responsive as Crossplane reports it, set on every reconcile: True/WatchCircuitClosed, or False/WatchCircuitOpen
 * naming the source of most recent events. The message is a compatibility contract (users alert on it); it holds
 * no timestamps, so it does not change while the circuit stays open.
 */
export function responsiveCondition(state: BreakerState): ResponsiveCondition {
  if (!state.open) return { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed' };
  return {
    type: 'Responsive',
    status: 'False',
    reason: 'WatchCircuitOpen',
    message: `Too many watch events from ${state.triggeredBy ?? 'unknown source'}. Allowing events periodically.`,
  };
}
