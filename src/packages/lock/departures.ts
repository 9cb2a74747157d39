// Package revisions leave the Lock when they are deleted, as upstream's revision reconciler removes itself
// (internal/controller/pkg/revision/reconciler.go, `meta.WasDeleted`): otherwise a deleted active revision would stay
// listed and the resolver would take its package for installed. compositor adds no finalizer of its own, so a revision
// deleted while compositor is down cannot hang; one that carries upstream's (`revision.pkg.crossplane.io`, on every
// revision Crossplane's package manager made) leaves the Lock first and then has it removed, or its deletion would
// never finish once Crossplane core is gone. A revision already gone leaves the Lock on its delete event, and so does a
// deleted Function a built-in served (listed under the Function's name, controller.ts).
import type { Logger } from 'pino';
import { errorMessage } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import type { ObjectMeta } from '../../apis/index.js';
import { CONTENT_TYPE, getIfExists, isNotFound, removeFinalizerPatch } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import type { WatchEvent } from '../../watch/index.js';
import type { DependencyManager } from './manager.js';
import type { PackageType } from './types.js';

const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' } as const;

/** Upstream's package revision finalizer. */
export const REVISION_FINALIZER = 'revision.pkg.crossplane.io';

/** The revision kind of each package type and where its objects are. */
const REVISION_KINDS: Record<PackageType, { apiVersion: string; kind: string; path: string }> = {
  Configuration: {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ConfigurationRevision',
    path: '/apis/pkg.crossplane.io/v1/configurationrevisions',
  },
  Provider: {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    path: '/apis/pkg.crossplane.io/v1/providerrevisions',
  },
  Function: {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'FunctionRevision',
    path: '/apis/pkg.crossplane.io/v1/functionrevisions',
  },
};

export interface RevisionDeparturesOptions extends ControllerContext {
  settings: ControllerSettings;
  dependencies: Pick<DependencyManager, 'removeSelf'>;
  /** The package types whose revisions are watched: Providers' only with --enable-providers. */
  types: readonly PackageType[];
}

export class RevisionDepartures implements Lifecycle {
  readonly name = 'packages/revision-departures';
  private readonly shell: ControllerShell;
  private readonly logger: Logger;

  constructor(private readonly options: RevisionDeparturesOptions) {
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      workers: 1,
      watches: [
        ...options.types.map((type) =>
          watchKind({ kind: REVISION_KINDS[type], keys: (event) => departureKeys(type, event), waitForSync: false }),
        ),
        // A Function a built-in serves is listed under its own name, which no revision has: its deletion finds no
        // revision of that name and takes the entry out the same way.
        watchKind({ kind: FUNCTION, keys: (event) => departureKeys('Function', event), waitForSync: false }),
      ],
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

  /** `<type>/<name>`: the revision, read fresh, leaves the Lock when gone or being deleted, then loses the finalizer. */
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const [type, name] = key.split('/') as [PackageType, string];
    const kind = REVISION_KINDS[type];
    const path = `${kind.path}/${name}`;
    const revision = await getIfExists<{ metadata: ObjectMeta }>(this.options.client, path, signal);
    if (revision !== undefined && revision.metadata.deletionTimestamp === undefined) return {};
    await this.options.dependencies.removeSelf(name, signal, type);
    const patch = removeFinalizerPatch(revision?.metadata.finalizers, REVISION_FINALIZER);
    if (patch === undefined) return {};
    try {
      await this.options.client.request('PATCH', path, { body: patch, contentType: CONTENT_TYPE.jsonPatch, signal });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw new Error(`cannot remove package revision finalizer: ${errorMessage(err)}`, { cause: err });
    }
    this.logger.debug({ revision: name, type }, 'package revision left the Lock');
    return {};
  }
}

/** A delete, or any sight of a revision being deleted (it may carry the finalizer): its key; nothing otherwise. */
function departureKeys(type: PackageType, event: WatchEvent): string[] {
  const deleting = event.type === 'delete' || event.object.metadata.deletionTimestamp !== undefined;
  return deleting && event.type !== 'resync' ? [`${type}/${event.object.metadata.name}`] : [];
}
