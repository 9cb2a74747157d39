import { controllerReference, type ObjectMeta, type OwnerReference } from '../apis/index.js';
import { dateOf, systemClock, type Clock } from '../base/index.js';
import { OwnWrites } from '../circuitbreaker/index.js';
import {
  ControllerShell,
  sameCondition,
  setConditions,
  watchKind,
  type Condition,
  type ControllerContext,
} from '../controller/index.js';
import {
  CONTENT_TYPE,
  Discovery,
  isAlreadyExists,
  KindNotServedError,
  isConflict,
  isNotFound,
  type KubeObject,
} from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { ReconcileLimiter, ReconcileResult } from '../queue/index.js';
import type { IndexFunction, InformerLease, WatchEvent } from '../watch/index.js';
import { referencedRevision, revisionsToDelete } from './revisionGc.js';
import { compositionHash } from './revisionHash.js';

export const COMPOSITION = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'Composition' } as const;
export const COMPOSITION_REVISION = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'CompositionRevision',
} as const;
export const COMPOSITION_NAME_LABEL = 'crossplane.io/composition-name';
export const COMPOSITION_HASH_LABEL = 'crossplane.io/composition-hash';
/** On the CompositionRevision informer: revisions by their crossplane.io/composition-name label. */
export const REVISIONS_BY_COMPOSITION_INDEX = 'compositor/revisions-by-composition';
const CONTROLLER_NAME = 'revisions/compositions.apiextensions.crossplane.io';
/** How long a reconcile waits for its last write to reach the cache before giving up (and risking a stale read). */
const CACHE_WAIT_MS = 5_000;

export type Composition = KubeObject & { metadata: ObjectMeta; spec?: Record<string, unknown> };
export type CompositionRevision = KubeObject & {
  metadata: ObjectMeta;
  spec: Record<string, unknown> & { revision?: number };
  status?: Record<string, unknown> & { conditions?: Condition[] };
};

export const revisionsByComposition: IndexFunction = (revision) => {
  const name = (revision.metadata.labels as Record<string, string> | undefined)?.[COMPOSITION_NAME_LABEL];
  return name === undefined ? [] : [name];
};

/** `<composition>-<first 7 hex of the hash>`, as Crossplane names revisions. */
export function revisionName(composition: string, hash: string): string {
  return `${composition}-${hash.slice(0, 7)}`;
}

/** The controller reference a revision carries to its Composition. */
export function compositionOwner(composition: Composition): OwnerReference {
  return controllerReference({
    apiVersion: composition.apiVersion,
    kind: COMPOSITION.kind,
    metadata: composition.metadata,
  });
}

/** A new revision: the Composition's labels (plus name and hash), annotations and spec, numbered `revision`. */
export function newRevision(composition: Composition, hash: string, revision: number): CompositionRevision {
  const { name, labels, annotations } = composition.metadata;
  return {
    ...COMPOSITION_REVISION,
    metadata: {
      name: revisionName(name, hash),
      labels: { ...labels, [COMPOSITION_NAME_LABEL]: name, [COMPOSITION_HASH_LABEL]: hash.slice(0, 63) },
      ...(annotations ? { annotations: { ...annotations } } : {}),
      ownerReferences: [compositionOwner(composition)],
    },
    spec: { ...composition.spec, revision },
  };
}

/**
 * The ValidPipeline condition of a revision. compositor does not check function capabilities (upstream requires
 * each step's active FunctionRevision to advertise `composition`); such a check belongs here, and the composite
 * reconciler refuses only a revision whose ValidPipeline is explicitly False.
 */
export function validPipeline(_revision: CompositionRevision): Condition {
  return { type: 'ValidPipeline', status: 'True', reason: 'ValidPipeline' };
}

interface RevisionChange {
  metadata?: Partial<ObjectMeta>;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface CompositionRevisionControllerOptions extends Pick<
  ControllerContext,
  'client' | 'informers' | 'metrics' | 'logger'
> {
  /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller. */
  reconcileLimiter: ReconcileLimiter;
  /** --max-composition-revisions: revisions kept per Composition besides referenced ones; undefined keeps all. */
  maxRevisions?: number;
  workers?: number;
  /** Condition times and the bound on the wait for a write's echo (CACHE_WAIT_MS); the system clock unless given. */
  clock?: Clock;
}

/**
 * Crossplane's Composition revision controller: every distinct Composition (by the hash of its labels, annotations
 * and spec) gets one CompositionRevision, numbered from 1; returning to an earlier state renumbers that revision
 * as the latest instead of creating another. Revisions are read from the informer cache, re-adopted when their
 * controller reference is missing (a backup restore strips it), and recreated when deleted.
 *
 * @example
 * const revisions = new CompositionRevisionController({ client, informers, metrics, logger, reconcileLimiter });
 * await revisions.start(signal);
 * await revisions.stop(AbortSignal.timeout(30_000));
 */
export class CompositionRevisionController implements Lifecycle {
  readonly name = CONTROLLER_NAME;
  private readonly shell: ControllerShell;
  private readonly now: () => Date;
  /** This controller's writes to revisions, so a reconcile can wait for its last write's echo. */
  private readonly ownWrites = new OwnWrites();
  private readonly discovery: Discovery;

  constructor(private readonly options: CompositionRevisionControllerOptions) {
    this.now = () => dateOf(options.clock ?? systemClock);
    this.discovery = new Discovery(options.client);
    const { reconcileLimiter, workers = 2 } = options;
    this.shell = new ControllerShell({
      ...options,
      name: CONTROLLER_NAME,
      settings: { reconcileLimiter, workers },
      watches: [
        watchKind<Composition>({ kind: COMPOSITION }),
        // A revision event concerns the Composition named by its label, so a deleted revision is recreated.
        watchKind<CompositionRevision>({
          kind: COMPOSITION_REVISION,
          indexes: { [REVISIONS_BY_COMPOSITION_INDEX]: revisionsByComposition },
          keys: (event) => {
            this.noteEcho(event);
            return revisionsByComposition(event.object);
          },
        }),
      ],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'composition', level: 'warn', message: 'reconcile failed', causes: true },
    });
  }

  /** Watches Compositions and their revisions; resolves once both caches are synced (or `signal` aborts). */
  start(signal: AbortSignal): Promise<void> {
    return this.shell.start(signal);
  }

  /** Stops taking work, waits for in-flight reconciles (up to `deadline`) and releases both informers. */
  stop(deadline: AbortSignal): Promise<void> {
    return this.shell.stop(deadline);
  }

  private async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const composition = this.shell.store<Composition>(COMPOSITION)?.get(key);
    if (!composition || composition.metadata.deletionTimestamp) return {};
    try {
      const written = await this.sync(composition, signal);
      // The next reconcile of the Composition, which may start at once, must not number a revision from a cache
      // that lacks the one just written: wait for its echo, boundedly (a relist may skip it).
      if (written) await this.ownWrites.echoed([written], { ms: CACHE_WAIT_MS, clock: this.options.clock, signal });
      return {};
    } catch (err) {
      // A revision deleted while we wrote to it: its delete event enqueues the Composition again.
      if (isNotFound(err)) return {};
      throw err;
    }
  }

  /**
   * Marks the echoes of this controller's writes as delivered. The API server often sends a write's event before
   * its response: such an event is judged once the write has settled (and been recorded).
   */
  private noteEcho(event: WatchEvent<CompositionRevision>): void {
    const { object } = event;
    if (event.type === 'delete') {
      this.ownWrites.forget(object);
      return;
    }
    const pending = this.ownWrites.pending(object);
    if (!pending) {
      this.ownWrites.isEcho(object);
      return;
    }
    void pending.then(() => this.ownWrites.isEcho(object));
  }

  /** Adopt, find or create the revision of the Composition's hash, number it latest, mark it valid. */
  private async sync(composition: Composition, signal: AbortSignal): Promise<CompositionRevision | undefined> {
    const hash = compositionHash(composition);
    const listed = this.revisionLease().informer.store.byIndex(
      REVISIONS_BY_COMPOSITION_INDEX,
      composition.metadata.name,
    );
    const revisions: CompositionRevision[] = [];
    for (const revision of listed) revisions.push(await this.adopt(revision, composition, signal));
    const latest = Math.max(0, ...revisions.map(numberOf));
    const existing = revisions
      .filter((r) => r.metadata.labels?.[COMPOSITION_HASH_LABEL] === hash.slice(0, 63))
      .reduce<CompositionRevision | undefined>((a, b) => (a && numberOf(a) >= numberOf(b) ? a : b), undefined);
    let current = existing ?? (await this.create(composition, hash, latest + 1, signal));
    current = await this.promote(current, latest, signal);
    current = await this.ensureValidPipeline(current, signal);
    await this.collectGarbage(composition, [...revisions, current], current, signal);
    return current === existing ? undefined : current;
  }

  /** Deletes the revisions beyond --max-composition-revisions that no XR references (see revisionGc.ts). */
  private async collectGarbage(
    composition: Composition,
    revisions: readonly CompositionRevision[],
    current: CompositionRevision,
    signal: AbortSignal,
  ): Promise<void> {
    const keep = this.options.maxRevisions;
    if (keep === undefined) return;
    const numbered = new Map(revisions.map((r) => [r.metadata.name, { name: r.metadata.name, number: numberOf(r) }]));
    const candidates = [...numbered.values()];
    const plan = {
      keep,
      current: current.metadata.name,
      referenced: new Set<string>() as ReadonlySet<string> | undefined,
    };
    if (revisionsToDelete(candidates, plan).length === 0) return;
    // Only now, with something to delete, is it worth listing the XRs that might still use it.
    plan.referenced = await this.referencedRevisions(composition, signal);
    for (const name of revisionsToDelete(candidates, plan)) {
      await this.options.client.request('DELETE', this.path(name), { signal }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      this.options.logger.info({ controller: CONTROLLER_NAME, revision: name }, 'deleted unreferenced old revision');
    }
  }

  /** Revision names the Composition's XR kind references; undefined when its XRs cannot be listed. */
  private async referencedRevisions(composition: Composition, signal: AbortSignal): Promise<Set<string> | undefined> {
    const type = (composition.spec as { compositeTypeRef?: { apiVersion?: string; kind?: string } } | undefined)
      ?.compositeTypeRef;
    if (!type?.apiVersion || !type.kind) return undefined;
    try {
      // Every namespace's XRs: the collection path without a namespace.
      const { groupVersionPath, plural } = await this.discovery.resolve(type.apiVersion, type.kind);
      const list = await this.options.client.request<{ items: { spec?: Record<string, unknown> }[] }>(
        'GET',
        `${groupVersionPath}/${plural}`,
        { signal },
      );
      return new Set(list.items.map(referencedRevision).filter((n): n is string => n !== undefined));
    } catch (err) {
      if (err instanceof KindNotServedError) return undefined;
      throw err;
    }
  }

  /** Restores the controller reference (and name label) of a revision labelled for this Composition. */
  private async adopt(
    revision: CompositionRevision,
    composition: Composition,
    signal: AbortSignal,
  ): Promise<CompositionRevision> {
    const owners = revision.metadata.ownerReferences ?? [];
    const uid = composition.metadata.uid;
    const labelled = revision.metadata.labels?.[COMPOSITION_NAME_LABEL] === composition.metadata.name;
    if (labelled && owners.some((o) => o.controller === true && o.uid === uid)) return revision;
    const name = composition.metadata.name;
    const foreign = owners.find((o) => o.controller === true && !(o.kind === COMPOSITION.kind && o.name === name));
    if (foreign) {
      throw new Error(
        `cannot adopt CompositionRevision "${revision.metadata.name}": it is controlled by ${foreign.kind} "${foreign.name}"`,
      );
    }
    // A controller reference to an earlier Composition of the same name (another UID) is stale: replace it.
    const others = owners.filter((o) => o.controller !== true);
    const metadata = {
      labels: { [COMPOSITION_NAME_LABEL]: composition.metadata.name },
      ownerReferences: [...others, compositionOwner(composition)],
    };
    const adopted = await this.patch(revision, { metadata }, signal);
    this.options.logger.info({ controller: CONTROLLER_NAME, revision: revision.metadata.name }, 'adopted revision');
    return adopted;
  }

  private async create(
    composition: Composition,
    hash: string,
    revision: number,
    signal: AbortSignal,
  ): Promise<CompositionRevision> {
    const body = newRevision(composition, hash, revision);
    const name = body.metadata.name;
    try {
      const created = await this.ownWrites.track(body, () =>
        this.options.client.request<CompositionRevision>('POST', this.path(), { body, signal }),
      );
      this.options.logger.info({ controller: CONTROLLER_NAME, revision: name, number: revision }, 'created revision');
      return created;
    } catch (err) {
      if (!isAlreadyExists(err)) throw new Error(`cannot create CompositionRevision "${name}"`, { cause: err });
    }
    // Most likely our own earlier create that the cache has not seen yet: use it if it has this hash.
    const found = await this.options.client.request<CompositionRevision>('GET', this.path(name), { signal });
    if (found.metadata.labels?.[COMPOSITION_HASH_LABEL] !== hash.slice(0, 63)) {
      throw new Error(`cannot create CompositionRevision "${name}": one of that name exists with another hash`);
    }
    return this.adopt(found, composition, signal);
  }

  /** Renumbers a revision the Composition returned to, so it is the latest again (the revert case). */
  private async promote(
    revision: CompositionRevision,
    latest: number,
    signal: AbortSignal,
  ): Promise<CompositionRevision> {
    if (numberOf(revision) >= latest) return revision;
    const promoted = await this.patch(revision, { spec: { revision: latest + 1 } }, signal);
    this.options.logger.info(
      { controller: CONTROLLER_NAME, revision: revision.metadata.name, number: latest + 1 },
      'renumbered revision as the latest',
    );
    return promoted;
  }

  private async ensureValidPipeline(revision: CompositionRevision, signal: AbortSignal): Promise<CompositionRevision> {
    const wanted = validPipeline(revision);
    const conditions = revision.status?.conditions ?? [];
    const current = conditions.find((c) => c.type === wanted.type);
    if (sameCondition(current, wanted)) return revision;
    const status = { conditions: setConditions(conditions, [wanted], { now: this.now, precision: 'seconds' }) };
    return this.patch(revision, { status }, signal);
  }

  /**
   * A merge patch guarded by the revision's resourceVersion, so a stale cache read ends in a silent requeue. A
   * status change goes to the status subresource, where the API server ignores everything else.
   */
  private patch(
    revision: CompositionRevision,
    change: RevisionChange,
    signal: AbortSignal,
  ): Promise<CompositionRevision> {
    const name = revision.metadata.name;
    const subresource = change.status ? '/status' : '';
    const body = { ...change, metadata: { ...change.metadata, resourceVersion: revision.metadata.resourceVersion } };
    return this.ownWrites
      .track(revision, () =>
        this.options.client.request<CompositionRevision>('PATCH', this.path(name) + subresource, {
          body,
          contentType: CONTENT_TYPE.mergePatch,
          signal,
        }),
      )
      .catch((err: unknown) => {
        if (isConflict(err) || isNotFound(err)) throw err;
        throw new Error(`cannot update CompositionRevision "${name}"${subresource}`, { cause: err });
      });
  }

  private path(name?: string): string {
    const { groupVersionPath, plural } = this.revisionLease().resource;
    return `${groupVersionPath}/${plural}${name === undefined ? '' : `/${name}`}`;
  }

  private revisionLease(): InformerLease<CompositionRevision> {
    return this.shell.lease<CompositionRevision>(COMPOSITION_REVISION);
  }
}

function numberOf(revision: CompositionRevision): number {
  const n = revision.spec.revision;
  return typeof n === 'number' ? n : 0;
}
