// Writes a package object's status with a merge patch, only when its conditions or fields would change: a pass that
// finds nothing new writes nothing. Conditions are written in whole seconds, as Crossplane's.
import { dateOf, systemClock, type Clock } from '../../base/index.js';
import { sameConditions, setConditions } from '../../controller/index.js';
import { CONTENT_TYPE, type KubeClient } from '../../kube/index.js';
import type { Condition } from '../types.js';
import type { PackageKindSpec } from './kind.js';
import type { ConfigurationRevision } from './types.js';

export interface StatusTarget {
  path: string;
  stored: (Record<string, unknown> & { conditions?: Condition[] }) | undefined;
}

export async function writeStatus(
  deps: { client: KubeClient; clock?: Clock },
  { path, stored }: StatusTarget,
  updates: { conditions: readonly Condition[]; fields?: Record<string, unknown> },
  signal: AbortSignal,
): Promise<void> {
  const clock = deps.clock ?? systemClock;
  const conditions = setConditions(stored?.conditions, updates.conditions, {
    now: () => dateOf(clock),
    precision: 'seconds',
  });
  const fields = updates.fields ?? {};
  const same =
    sameConditions(stored?.conditions, conditions) &&
    Object.entries(fields).every(([k, v]) => JSON.stringify(stored?.[k]) === JSON.stringify(v));
  if (same) return;
  await deps.client.request('PATCH', `${path}/status`, {
    body: { status: { ...fields, conditions } },
    contentType: CONTENT_TYPE.mergePatch,
    signal,
  });
}

/** A revision's status as stored, and where the revision's kind writes it. */
export function revisionStatusTarget(
  kind: PackageKindSpec,
  rev: ConfigurationRevision,
): {
  path: string;
  stored: ConfigurationRevision['status'] & Record<string, unknown>;
} {
  return {
    path: `${kind.revisions}/${rev.metadata.name}`,
    stored: rev.status as ConfigurationRevision['status'] & Record<string, unknown>,
  };
}
