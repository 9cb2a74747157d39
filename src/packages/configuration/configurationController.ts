// The Configuration controller, as Crossplane v2.3's package reconciler (internal/controller/pkg/manager): the package
// is pulled to learn its digest; the revision of that digest (revisionNameOf) is applied with the Configuration's
// settings and made current, every other Active revision is made Inactive, the oldest is deleted past
// revisionHistoryLimit (revisions.ts); status names the current revision and package, Installed says whether it is
// active and Healthy follows its RevisionHealthy. A pull that fails is Installed False (UnpackingPackage) and Healthy
// False with the error, and changes no revision: what is installed stays installed. A revision's change re-queues its
// Configuration, which copies the revision's health. ImageConfigs apply to the pull (pull.ts): status.resolvedPackage is
// the reference pulled, appliedImageConfigRefs the ImageConfigs used, and a change of an ImageConfig re-queues the
// packages it matches; the revision keeps the reference as written (upstream: the Lock and revisions name originals).
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import { CONTENT_TYPE, getIfExists, isNotFound, serverSideApply } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import { LABEL_PARENT_PACKAGE } from '../names.js';
import type { PackageClient } from '../xpkg/index.js';
import { configurationHealth, installed, unhealthy, unpacking } from './conditions.js';
import { CONFIGURATION_KIND, controllerNameOf, type PackageKindSpec } from './kind.js';
import { FIELD_MANAGER, revisionNameOf } from './names.js';
import {
  IMAGE_CONFIG,
  imageConfigKeys,
  appliedRefsField,
  ImageConfigStore,
  type ImageResolution,
} from '../imageconfig/index.js';
import { preparePull } from './pull.js';
import { COPIED_SPEC_FIELDS, revisionCurrent } from './current.js';
import { handlePause } from './paused.js';
import { planRevisions } from './revisions.js';
import { writeStatus } from './status.js';
import type { Configuration, ConfigurationRevision, DesiredState } from './types.js';

export interface ConfigurationControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  packages: Pick<PackageClient, 'get'>;
  /** compositor's namespace: where packagePullSecrets are read. */
  namespace: string;
  /** How soon a Configuration whose packagePullPolicy is Always looks for a new digest (upstream: 1m). */
  pullIntervalMs?: number;
  clock?: Clock;
  /** The package kind reconciled; a Configuration unless given. */
  kind?: PackageKindSpec;
}

const REASON = {
  list: 'ListRevision',
  unpack: 'UnpackPackage',
  transition: 'TransitionRevision',
  garbageCollect: 'GarbageCollect',
  install: 'InstallPackageRevision',
} as const;

/** A failure already reported on the Configuration; the queue retries it with backoff. */
class ReportedError extends Error {
  override readonly name = 'ReportedError';
}

export class ConfigurationController implements Lifecycle {
  readonly name: string;
  private readonly shell: ControllerShell;
  private readonly logger: Logger;
  private readonly kind: PackageKindSpec;
  private readonly imageConfigs: ImageConfigStore;

  constructor(private readonly options: ConfigurationControllerOptions) {
    this.kind = options.kind ?? CONFIGURATION_KIND;
    this.name = controllerNameOf(this.kind.package);
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      watches: [
        watchKind({ kind: this.kind.package }),
        watchKind({
          kind: this.kind.revision,
          keys: (event) => {
            const labels = event.object.metadata.labels as Record<string, string> | undefined;
            const parent = labels?.[LABEL_PARENT_PACKAGE];
            return parent === undefined ? [] : [parent];
          },
        }),
        watchKind({
          kind: IMAGE_CONFIG,
          keys: (event) =>
            imageConfigKeys(
              event,
              (this.shell.store(this.kind.package)?.list() ?? []) as unknown as Configuration[],
              (cfg) => [cfg.spec.package, cfg.status?.resolvedPackage],
            ),
        }),
      ],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'configuration', level: 'warn', causes: true },
    });
    this.imageConfigs = new ImageConfigStore({ client: options.client, cache: () => this.shell.store(IMAGE_CONFIG) });
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  /** Reconciles one Configuration, read fresh. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const cfg = await getIfExists<Configuration>(this.options.client, `${this.kind.packages}/${name}`, signal);
    // Being deleted: the garbage collector deletes its revisions, and with them what only they owned.
    if (cfg === undefined || cfg.metadata.deletionTimestamp !== undefined) return {};
    const path = `${this.kind.packages}/${name}`;
    const event = (reason: string, message: string): void => {
      this.event(cfg, 'Normal', reason, message);
    };
    if (await handlePause({ client: this.options.client, object: cfg, path, event }, signal)) return {};
    const revisions = await this.listRevisions(cfg, signal);
    const { digest, resolution } = await this.resolve(cfg, signal);
    const currentName = revisionNameOf(name, digest);
    const plan = planRevisions(cfg, currentName, revisions);
    for (const old of plan.deactivate) await this.deactivate(cfg, old, signal);
    if (plan.collect !== undefined) await this.collect(cfg, plan.collect, signal);
    const stored = revisions.find((r) => r.metadata.name === currentName);
    const current = await this.applyRevision(cfg, currentName, { ...plan, stored }, signal);
    await this.report(cfg, { current, stored, resolution }, signal);
    return cfg.spec.packagePullPolicy === 'Always' ? { requeueAfterMs: this.options.pullIntervalMs ?? 60_000 } : {};
  }

  /** Status: the current revision and package, Installed from its state, Healthy from its RevisionHealthy. */
  private async report(
    cfg: Configuration,
    {
      current,
      stored,
      resolution,
    }: { current: ConfigurationRevision; stored: ConfigurationRevision | undefined; resolution: ImageResolution },
    signal: AbortSignal,
  ): Promise<void> {
    // The revision as applied carries no status when it was just created; the listed one may have one.
    const health = (this.kind.health ?? configurationHealth)(current.status?.conditions ?? stored?.status?.conditions);
    if (health.status === 'True' && !wasHealthy(cfg)) {
      this.event(cfg, 'Normal', REASON.install, 'Successfully installed package revision');
    }
    const active = current.spec.desiredState === 'Active';
    const { name } = cfg.metadata;
    await writeStatus(
      this.options,
      { path: `${this.kind.packages}/${name}`, stored: cfg.status },
      {
        conditions: [health, active ? installed(true) : installed(false, 'Package is inactive')],
        fields: {
          currentRevision: current.metadata.name,
          currentIdentifier: cfg.spec.package,
          resolvedPackage: resolution.resolvedRef,
          ...appliedRefsField(cfg.status?.appliedImageConfigRefs, resolution),
        },
      },
      signal,
    );
  }

  private async listRevisions(cfg: Configuration, signal: AbortSignal): Promise<ConfigurationRevision[]> {
    try {
      const list = await this.options.client.request<{ items: ConfigurationRevision[] }>('GET', this.kind.revisions, {
        query: { labelSelector: `${LABEL_PARENT_PACKAGE}=${cfg.metadata.name}` },
        signal,
      });
      return list.items;
    } catch (err) {
      const message = `cannot list revisions for package: ${errorMessage(err)}`;
      this.event(cfg, 'Warning', REASON.list, message);
      throw new ReportedError(message, { cause: err });
    }
  }

  /** The digest spec.package resolves to; a failure is reported as UnpackingPackage and retried. */
  private async resolve(
    cfg: Configuration,
    signal: AbortSignal,
  ): Promise<{ digest: string; resolution: ImageResolution }> {
    try {
      const deps = { ...this.options, imageConfigs: this.imageConfigs };
      const { resolution, options } = await preparePull(deps, cfg.spec.package, cfg.spec, signal);
      const pkg = await this.options.packages.get(resolution.resolvedRef, options);
      return { digest: pkg.digest, resolution };
    } catch (err) {
      const message = `cannot unpack package: ${errorMessage(err, { cause: true })}`;
      if (cfg.status?.conditions?.find((c) => c.type === 'Installed')?.message !== message) {
        this.event(cfg, 'Warning', REASON.unpack, message);
      }
      await writeStatus(
        this.options,
        { path: `${this.kind.packages}/${cfg.metadata.name}`, stored: cfg.status },
        { conditions: [unpacking(message), unhealthy(message)] },
        signal,
      ).catch((writeErr: unknown) => {
        this.logger.debug(
          { configuration: cfg.metadata.name, err: errorMessage(writeErr) },
          'cannot update package status',
        );
      });
      throw new ReportedError(message, { cause: err });
    }
  }

  private async deactivate(cfg: Configuration, rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    await this.options.client
      .request('PATCH', `${this.kind.revisions}/${rev.metadata.name}`, {
        body: { spec: { desiredState: 'Inactive' } },
        contentType: CONTENT_TYPE.mergePatch,
        signal,
      })
      .catch((err: unknown) => {
        const message = `cannot update inactive package revision: ${errorMessage(err)}`;
        this.event(cfg, 'Warning', REASON.transition, message);
        throw new ReportedError(message, { cause: err });
      });
  }

  private async collect(cfg: Configuration, rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    await this.options.client
      .request('DELETE', `${this.kind.revisions}/${rev.metadata.name}`, { signal })
      .catch((err: unknown) => {
        if (isNotFound(err)) return;
        const message = `cannot garbage collect old package revision: ${errorMessage(err)}`;
        this.event(cfg, 'Warning', REASON.garbageCollect, message);
        throw new ReportedError(message, { cause: err });
      });
  }

  /**
   * Applies the current revision: the Configuration's settings, its number and state, controlled by the Configuration.
   * A stored revision that holds all of it already (one Crossplane made, adopted at a switch) is not written.
   */
  private async applyRevision(
    cfg: Configuration,
    name: string,
    plan: { revision: number; desiredState: DesiredState; stored: ConfigurationRevision | undefined },
    signal: AbortSignal,
  ): Promise<ConfigurationRevision> {
    const controller = {
      ...this.kind.package,
      name: cfg.metadata.name,
      uid: cfg.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    const named = this.kind.named?.(cfg.metadata.name) ?? {};
    const spec = {
      desiredState: plan.desiredState,
      image: cfg.spec.package,
      revision: plan.revision,
      ...copied(cfg.spec, this.kind.copied),
      ...named,
    };
    const extraFields = [...this.kind.copied, ...Object.keys(named)];
    if (plan.stored && revisionCurrent(plan.stored, { parent: cfg.metadata.name, controller, spec, extraFields }))
      return plan.stored;
    const body = {
      ...this.kind.revision,
      metadata: { name, labels: { [LABEL_PARENT_PACKAGE]: cfg.metadata.name }, ownerReferences: [controller] },
      spec,
    };
    try {
      return await serverSideApply<ConfigurationRevision>(this.options.client, `${this.kind.revisions}/${name}`, body, {
        fieldManager: FIELD_MANAGER,
        signal,
      });
    } catch (err) {
      const message = `cannot apply package revision: ${errorMessage(err)}`;
      this.event(cfg, 'Warning', REASON.install, message);
      throw new ReportedError(message, { cause: err });
    }
  }

  private event(cfg: Configuration, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.options.events.event({ ...this.kind.package, metadata: cfg.metadata }, { type, reason, message });
  }
}

/** What a revision takes from its package's spec, as upstream's package reconciler copies it. */
function copied(spec: Configuration['spec'], extra: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = [...COPIED_SPEC_FIELDS, ...extra];
  const fields: Record<string, unknown> = { ...spec };
  for (const key of keys) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

/** Whether the package's stored Healthy condition is True. */
function wasHealthy(cfg: Configuration): boolean {
  return cfg.status?.conditions?.find((c) => c.type === 'Healthy')?.status === 'True';
}
