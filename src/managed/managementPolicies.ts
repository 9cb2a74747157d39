import type { DeletionPolicy } from './types.js';

// spec.managementPolicies: which actions the reconciler may take on the external resource. The supported sets
// and the deletion rule are crossplane-runtime's (pkg/reconciler/managed/policies.go); management policies are
// always enabled, as in Crossplane v2.

export type ManagementAction = 'Observe' | 'Create' | 'Update' | 'Delete' | 'LateInitialize' | '*';

export interface ManagementPolicies {
  /** No action at all (an empty list): treated like crossplane.io/paused. */
  paused: boolean;
  /** Observe only: a missing external resource is an error, never created; no spec writes. */
  observeOnly: boolean;
  create: boolean;
  update: boolean;
  lateInitialize: boolean;
  /** Delete the external resource with the MR; false orphans it. */
  delete: boolean;
}

export type PolicyResolution = { ok: true; policies: ManagementPolicies } | { ok: false; message: string };

const SUPPORTED: readonly (readonly ManagementAction[])[] = [
  ['*'],
  ['Observe', 'Create', 'Update', 'Delete', 'LateInitialize'],
  ['Observe'],
  [],
  ['Observe', 'Create', 'Update', 'Delete'],
  ['Observe', 'Create', 'Update', 'LateInitialize'],
  ['Observe', 'Create', 'Update'],
  ['Observe', 'Create', 'Delete', 'LateInitialize'],
  ['Observe', 'Create', 'LateInitialize'],
  ['Observe', 'Create', 'Delete'],
  ['Observe', 'Create'],
  ['Observe', 'Delete'],
];

const key = (actions: Iterable<string>): string => [...new Set(actions)].sort().join(',');
const SUPPORTED_KEYS = new Set(SUPPORTED.map(key));

/**
 * Resolves spec.managementPolicies (default ["*"]) and spec.deletionPolicy (default Delete). An unsupported
 * combination is refused with a message naming it, as Crossplane refuses it.
 *
 * @example resolveManagementPolicies({ managementPolicies: ['Observe'] }) // { ok: true, policies: { observeOnly: true, ... } }
 */
export function resolveManagementPolicies(spec: {
  managementPolicies?: readonly string[];
  deletionPolicy?: DeletionPolicy;
}): PolicyResolution {
  const actions = new Set(spec.managementPolicies ?? ['*']);
  if (!SUPPORTED_KEYS.has(key(actions))) {
    return {
      ok: false,
      message: `unsupported managementPolicies [${[...actions].sort().join(', ')}]: use ["*"], ["Observe"] or another combination Crossplane supports`,
    };
  }
  const all = actions.has('*');
  const allows = (action: ManagementAction): boolean => all || actions.has(action);
  return {
    ok: true,
    policies: {
      paused: actions.size === 0,
      observeOnly: actions.size === 1 && actions.has('Observe'),
      create: allows('Create'),
      update: allows('Update'),
      lateInitialize: allows('LateInitialize'),
      delete: shouldDelete(actions, spec.deletionPolicy ?? 'Delete'),
    },
  };
}

/**
 * Crossplane's rule while deletionPolicy and managementPolicies coexist: delete when both say so, or when the
 * policies are not the default and name Delete explicitly; otherwise (Orphan with ["*"], or no Delete) orphan.
 */
function shouldDelete(actions: ReadonlySet<string>, deletionPolicy: DeletionPolicy): boolean {
  const all = actions.has('*');
  if (deletionPolicy === 'Delete' && (all || actions.has('Delete'))) return true;
  return !all && actions.has('Delete');
}
