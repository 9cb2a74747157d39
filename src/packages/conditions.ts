// Package conditions as Crossplane's (apis/pkg/v1/conditions.go): a Function has Installed and Healthy, a revision
// RevisionHealthy and RuntimeHealthy; a Function's Healthy is derived from its current revision's two. compositor adds
// one condition of its own to a Function, Runtime: whether a built-in serves it in-process or its package runs.
import type { RuntimeChoice } from '../functions/index.js';
import type { Condition } from './types.js';

export const REASON = {
  active: 'ActivePackageRevision',
  inactive: 'InactivePackageRevision',
  healthy: 'HealthyPackageRevision',
  unhealthy: 'UnhealthyPackageRevision',
  unknown: 'UnknownPackageRevisionHealth',
} as const;

export const installed = (active: boolean, message?: string): Condition => ({
  type: 'Installed',
  status: active ? 'True' : 'False',
  reason: active ? REASON.active : REASON.inactive,
  ...(message !== undefined ? { message } : {}),
});

export const health = (type: string, healthy: boolean | undefined, message?: string): Condition => ({
  type,
  status: healthy === undefined ? 'Unknown' : healthy ? 'True' : 'False',
  reason: healthy === undefined ? REASON.unknown : healthy ? REASON.healthy : REASON.unhealthy,
  ...(message !== undefined ? { message } : {}),
});

/** compositor's condition type on a Function: which way it runs (chooseRuntime). Upstream has no such type. */
export const RUNTIME = 'Runtime';

export const RUNTIME_REASON = {
  builtin: 'BuiltinFunction',
  package: 'PackageAsWritten',
  invalidAnnotation: 'InvalidBuiltinAnnotation',
} as const;

/**
 * A Function's Runtime condition: True with reason BuiltinFunction or PackageAsWritten, or False with reason
 * InvalidBuiltinAnnotation when its compositor.crossplane.io/builtin annotation is neither "true" nor "false" (the
 * message still says which way it runs).
 */
export function runtime(choice: RuntimeChoice): Condition {
  if (choice.invalidAnnotation !== undefined) {
    return { type: RUNTIME, status: 'False', reason: RUNTIME_REASON.invalidAnnotation, message: choice.message };
  }
  const reason = choice.builtin === undefined ? RUNTIME_REASON.package : RUNTIME_REASON.builtin;
  return { type: RUNTIME, status: 'True', reason, message: choice.message };
}

export function conditionOf(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** A Function's Healthy from its revision's RevisionHealthy and RuntimeHealthy, worded as upstream's. */
export function packageHealth(conditions: readonly Condition[] | undefined): Condition {
  const revision = conditionOf(conditions, 'RevisionHealthy');
  const runtime = conditionOf(conditions, 'RuntimeHealthy');
  const describe = (what: string, c: Condition | undefined): string =>
    `Package ${what} health is "${c?.status ?? 'Unknown'}"` + (c?.message ? ` with message: ${c.message}` : '');
  if (revision?.status !== 'True') return health('Healthy', false, describe('revision', revision));
  if (runtime?.status !== 'True') return health('Healthy', false, describe('runtime', runtime));
  return health('Healthy', true);
}
