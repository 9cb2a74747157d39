// The RBAC manager's two ProviderRevision controllers of Crossplane v2.3 (internal/controller/rbac/provider/roles and
// binding) as one: every ProviderRevision gets its edit, view and system ClusterRoles (roles.ts, its family's kinds
// included, family.ts) and the binding of the system role to its runtime's ServiceAccount (binding.ts), each
// server-side applied only when the stored one differs (current.ts). The two steps fail apart, each with upstream's
// Warning event, and are retried with backoff; nothing is ever deleted (the garbage collector removes what a deleted
// revision controlled). Runtime Deployments are looked up in compositor's namespace, where its runtimes run, when
// the revision changes (its runtime's health is written to it): they are not watched.
import { errorMessage } from '../../base/index.js';
import {
  applyIfChanged,
  CLUSTER_ROLE_BINDINGS_PATH,
  CLUSTER_ROLES_PATH,
  ControllerShell,
  PAUSED_ANNOTATION,
  stableNAndSomeMore,
  watchKind,
  type ClusterRole,
  type ClusterRoleBinding,
  type ControllerContext,
  type ControllerSettings,
} from '../../controller/index.js';
import { FIELD_MANAGERS, getIfExists, isConflict, type KubeObject } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import type { WatchEvent } from '../../watch/index.js';
import type { ConfigurationRevision } from '../configuration/index.js';
import { PROVIDER_REVISION, PROVIDER_REVISIONS } from '../provider/names.js';
import { renderProviderBinding, runtimeSubjects, subjectNames, type RuntimeDeployment } from './binding.js';
import { checkControllable, isBindingCurrent, isRoleCurrent } from './current.js';
import { familyOf, grantedResources, PROVIDER_FAMILY_LABEL } from './family.js';
import { renderProviderRoles } from './roles.js';

export interface ProviderRbacControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  /** compositor's namespace: where the Deployments of provider runtimes are. */
  namespace: string;
}

/** Upstream's event reasons: one per controller. */
export const REASON = { roles: 'ApplyClusterRoles', binding: 'BindClusterRole' } as const;

const FIELD_MANAGER = FIELD_MANAGERS.rbac;

/** A ProviderRevision as read: the fields a revision has, and whatever else the API server sent. */
type Revision = ConfigurationRevision & KubeObject;

export class ProviderRbacController implements Lifecycle {
  readonly name = 'packages/rbac.providerrevision.pkg.crossplane.io';
  private readonly shell: ControllerShell;

  constructor(private readonly options: ProviderRbacControllerOptions) {
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      watches: [watchKind<Revision>({ kind: PROVIDER_REVISION, keys: (event) => this.keysOf(event) })],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'revision', level: 'warn', causes: true },
    });
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  /** Reconciles one revision, read fresh: its roles and its binding, each step failing on its own. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const rev = await getIfExists<Revision>(this.options.client, `${PROVIDER_REVISIONS}/${name}`, signal);
    if (rev === undefined || rev.metadata.deletionTimestamp !== undefined || paused(rev)) return {};
    const [roles, binding] = await Promise.allSettled([this.roles(rev, signal), this.binding(rev, signal)]);
    if (roles.status === 'rejected') throw roles.reason;
    if (binding.status === 'rejected') throw binding.reason;
    return {};
  }

  /** Applies the revision's roles; a Normal event names those written. */
  private async roles(rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    const members = await this.reported(rev, REASON.roles, 'cannot list ProviderRevisions', () =>
      this.family(rev, signal),
    );
    const applied: string[] = [];
    for (const role of renderProviderRoles(rev, grantedResources(rev, members))) {
      const wrote = await this.reported(rev, REASON.roles, 'cannot apply ClusterRole', () =>
        applyIfChanged<ClusterRole>(this.options.client, `${CLUSTER_ROLES_PATH}/${role.metadata.name}`, role, {
          fieldManager: FIELD_MANAGER,
          check: (stored) => {
            checkControllable(stored, rev.metadata.uid ?? '');
          },
          isCurrent: (stored) => isRoleCurrent(role, stored),
          signal,
        }),
      );
      if (wrote) applied.push(role.metadata.name);
    }
    if (applied.length > 0) {
      this.event(rev, 'Normal', REASON.roles, `Applied RBAC ClusterRoles: ${stableNAndSomeMore(applied)}`);
    }
  }

  /** Applies the binding of the system role to the ServiceAccounts of the revision's Deployments. */
  private async binding(rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    const deployments = await this.reported(rev, REASON.binding, 'cannot list Deployments', () =>
      this.deployments(signal),
    );
    const subjects = runtimeSubjects(rev, deployments);
    const binding = renderProviderBinding(rev, subjects);
    const path = `${CLUSTER_ROLE_BINDINGS_PATH}/${binding.metadata.name}`;
    const wrote = await this.reported(rev, REASON.binding, 'cannot apply ClusterRoleBinding', () =>
      applyIfChanged<ClusterRoleBinding>(this.options.client, path, binding, {
        fieldManager: FIELD_MANAGER,
        check: (stored) => {
          checkControllable(stored, rev.metadata.uid ?? '');
        },
        isCurrent: (stored) => isBindingCurrent(binding, stored),
        signal,
      }),
    );
    if (wrote) {
      const message = `Bound system ClusterRole "${binding.roleRef.name}" to provider ServiceAccount(s): ${subjectNames(subjects)}`;
      this.event(rev, 'Normal', REASON.binding, message);
    }
  }

  /** The other revisions of the revision's family, none without one. */
  private async family(rev: ConfigurationRevision, signal: AbortSignal): Promise<ConfigurationRevision[]> {
    const family = familyOf(rev);
    if (family === undefined) return [];
    const list = await this.options.client.request<{ items?: ConfigurationRevision[] }>('GET', PROVIDER_REVISIONS, {
      query: { labelSelector: `${PROVIDER_FAMILY_LABEL}=${family}` },
      signal,
    });
    return list.items ?? [];
  }

  private async deployments(signal: AbortSignal): Promise<RuntimeDeployment[]> {
    const path = `/apis/apps/v1/namespaces/${this.options.namespace}/deployments`;
    const list = await this.options.client.request<{ items?: RuntimeDeployment[] }>('GET', path, { signal });
    return list.items ?? [];
  }

  /**
   * Runs one step; a failure is upstream's Warning event, `what: detail`, and thrown wrapped to be retried. A conflict
   * is thrown as it is, for the queue to retry quietly, without an event, as upstream's.
   */
  private async reported<T>(
    rev: ConfigurationRevision,
    reason: string,
    what: string,
    step: () => Promise<T>,
  ): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (isConflict(err)) throw err;
      this.event(rev, 'Warning', reason, `${what}: ${errorMessage(err, { cause: true })}`);
      throw new Error(`${what} of ProviderRevision "${rev.metadata.name}"`, { cause: err });
    }
  }

  /**
   * The revision's own key, and every revision of its family (before and after the change) from the cache: a
   * member's new kinds are granted to the whole family.
   */
  private keysOf(event: WatchEvent<Revision>): string[] {
    const families = new Set(
      [event.object, ...(event.type === 'update' ? [event.oldObject] : [])].flatMap((r) => familyOf(r) ?? []),
    );
    const members =
      families.size === 0
        ? []
        : (this.shell.store<Revision>(PROVIDER_REVISION)?.list() ?? [])
            .filter((r) => families.has(familyOf(r) ?? ''))
            .map((r) => r.metadata.name);
    return [...new Set([event.object.metadata.name, ...members])];
  }

  private event(rev: ConfigurationRevision, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.options.events.event({ ...PROVIDER_REVISION, metadata: rev.metadata }, { type, reason, message });
  }
}

/** Whether the revision carries crossplane.io/paused: "true"; upstream's RBAC controllers then do nothing. */
function paused(rev: Revision): boolean {
  return rev.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}
