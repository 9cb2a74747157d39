// What the Configuration controller does with its revisions, decided without the API server: which revision is
// current and in which state, which others are set Inactive, which are deleted past revisionHistoryLimit. As
// Crossplane v2.3's package reconciler (internal/controller/pkg/manager/reconciler.go): the current revision always has
// the highest number; every other revision is made Inactive whatever the activation policy; Automatic (the default)
// activates the current one, Manual leaves its state to the user; one revision, the lowest numbered, is deleted per
// pass while more than limit + 1 exist (a limit of 0 keeps all).
import type { Configuration, ConfigurationRevision, DesiredState } from './types.js';

export interface RevisionPlan {
  /** The current revision's number and desired state. */
  revision: number;
  desiredState: DesiredState;
  /** Other revisions still Active, to be made Inactive. */
  deactivate: ConfigurationRevision[];
  /** The revision to delete this pass, if any. */
  collect: ConfigurationRevision | undefined;
}

export function planRevisions(
  cfg: Pick<Configuration, 'spec'>,
  currentName: string,
  revisions: readonly ConfigurationRevision[],
): RevisionPlan {
  const existing = revisions.find((r) => r.metadata.name === currentName);
  const highest = Math.max(0, ...revisions.map((r) => r.spec.revision));
  const current = existing?.spec.revision ?? 0;
  const revision = current < highest || highest === 0 ? highest + 1 : current;
  const automatic = (cfg.spec.revisionActivationPolicy ?? 'Automatic') === 'Automatic';
  const desiredState: DesiredState = automatic ? 'Active' : (existing?.spec.desiredState ?? 'Inactive');
  const deactivate = revisions.filter((r) => r.metadata.name !== currentName && r.spec.desiredState === 'Active');
  const collect = collectable(cfg.spec.revisionHistoryLimit ?? 1, revisions, currentName);
  return { revision, desiredState, deactivate, collect };
}

/**
 * The lowest numbered revision while more than `limit` + 1 exist; none with a limit of 0. Never the current one
 * (upstream could pick it when a package goes back to an older digest, whose revision is renumbered only after).
 */
function collectable(
  limit: number,
  revisions: readonly ConfigurationRevision[],
  currentName: string,
): ConfigurationRevision | undefined {
  if (limit === 0 || revisions.length <= limit + 1) return undefined;
  return [...revisions]
    .filter((r) => r.metadata.name !== currentName)
    .sort((a, b) => a.spec.revision - b.spec.revision)[0];
}
