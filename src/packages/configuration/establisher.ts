// Installs a revision's objects and records who owns them (ownership.ts decides). Two phases, as Crossplane's
// establisher: every object is read and checked first, the writes of the active revision dry-run, and only when all
// pass is anything written; so a package with one object controlled by something else, or one the API server
// refuses, takes over nothing. The active revision server-side applies each object; an inactive one only merge-patches
// owner references onto objects that exist. An object the dry run shows already as the package has it (one Crossplane
// installed, adopted at a switch, or one applied before) is not written again: nothing new, nothing written.
import { isDeepStrictEqual } from 'node:util';
import { CONTENT_TYPE, getIfExists, type Discovery, type KubeClient } from '../../kube/index.js';
import type { PackageObject } from '../xpkg/index.js';
import { FIELD_MANAGER } from './names.js';
import { decideOwnership, released, type OwnershipDecision } from './ownership.js';
import type { ObjectRef, OwnerReference } from './types.js';

/**
 * The group/kinds a Configuration's revision installs (upstream's FilteringEstablisher for ConfigurationRevisions);
 * any other object is left out, after the linter has reported it.
 */
export const CONFIGURATION_KINDS: readonly string[] = [
  'apiextensions.crossplane.io/CompositeResourceDefinition',
  'apiextensions.crossplane.io/Composition',
  'apiextensions.crossplane.io/ManagedResourceActivationPolicy',
  'ops.crossplane.io/Operation',
  'ops.crossplane.io/CronOperation',
  'ops.crossplane.io/WatchOperation',
];

/** An object some other owner controls: the revision's RevisionHealthy says so, nothing was written. */
export class ControlRefusedError extends Error {
  override readonly name = 'ControlRefusedError';
}

export interface EstablishInput {
  objects: readonly PackageObject[];
  /** The group/kinds established; CONFIGURATION_KINDS unless given. */
  kinds?: readonly string[];
  revision: OwnerReference;
  owningPackage: OwnerReference | undefined;
  control: boolean;
  commonLabels?: Record<string, string>;
  commonAnnotations?: Record<string, string>;
}

interface Planned {
  object: PackageObject & { metadata: { name: string } };
  path: string;
  decision: OwnershipDecision;
  control: boolean;
  resourceVersion: string | undefined;
  /** The owner references as stored: an owner-only write that changes none is skipped. */
  stored: OwnerReference[] | undefined;
  uid: string | undefined;
  /** The object as stored, compared with the dry run of its apply. */
  current: Stored | undefined;
  /** What the dry run of the apply answered: the object as the write would leave it. */
  preview?: Stored;
}

interface Stored {
  metadata: { uid?: string; resourceVersion?: string; ownerReferences?: OwnerReference[] } & Record<string, unknown>;
}

export class Establisher {
  constructor(private readonly deps: { client: KubeClient; discovery: Pick<Discovery, 'path'> }) {}

  /** Establishes every object of a Configuration kind; returns the references of status.objectRefs. */
  async establish(input: EstablishInput, signal: AbortSignal): Promise<ObjectRef[]> {
    const kinds = input.kinds ?? CONFIGURATION_KINDS;
    const objects = input.objects.filter((o) => isKindOf(kinds, o)).map((o) => withCommonMetadata(o, input));
    const planned: Planned[] = [];
    for (const object of objects) planned.push(await this.plan(object, input, signal));
    const refused = planned.flatMap((p) => (p.decision.action === 'refuse' ? [p.decision.message] : []));
    if (refused.length > 0) throw new ControlRefusedError(refused.sort().join('; '));
    for (const p of planned) await this.write(p, { dryRun: true, signal });
    const refs: ObjectRef[] = [];
    for (const p of planned) refs.push(await this.write(p, { dryRun: false, signal }));
    return refs.sort((a, b) => (identifier(a) > identifier(b) ? -1 : identifier(a) < identifier(b) ? 1 : 0));
  }

  /** Gives up control of the objects a revision installed, staying their owner (the revision went Inactive). */
  async release(refs: readonly ObjectRef[], revision: OwnerReference, signal: AbortSignal): Promise<void> {
    for (const ref of refs) {
      const path = await this.deps.discovery.path(ref.apiVersion, ref.kind, ref.name);
      const stored = await getIfExists<Stored>(this.deps.client, path, signal);
      if (stored === undefined) continue;
      const ownerReferences = released(stored.metadata.ownerReferences ?? [], revision);
      if (ownerReferences === undefined) continue;
      await this.patchOwners(path, ownerReferences, { resourceVersion: stored.metadata.resourceVersion, signal }).catch(
        (err: unknown) => {
          throw new Error(`cannot update owned object: ${ref.kind}/${ref.name}`, { cause: err });
        },
      );
    }
  }

  private async plan(
    object: PackageObject & { metadata: { name: string } },
    input: EstablishInput,
    signal: AbortSignal,
  ): Promise<Planned> {
    const path = await this.deps.discovery.path(object.apiVersion, object.kind, object.metadata.name);
    const stored = await getIfExists<Stored>(this.deps.client, path, signal);
    const decision = decideOwnership({
      name: object.metadata.name,
      current: stored?.metadata.ownerReferences ?? (stored === undefined ? undefined : []),
      revision: input.revision,
      owningPackage: input.owningPackage,
      control: input.control,
    });
    const current = stored === undefined ? undefined : (stored.metadata.ownerReferences ?? []);
    return {
      object,
      path,
      decision,
      control: input.control,
      resourceVersion: stored?.metadata.resourceVersion,
      stored: current,
      uid: stored?.metadata.uid,
      current: stored,
    };
  }

  private async write(p: Planned, options: { dryRun: boolean; signal: AbortSignal }): Promise<ObjectRef> {
    const { object, decision } = p;
    const ref: ObjectRef = { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name };
    if (decision.action !== 'write') return ref;
    if (upToDate(p, decision.ownerReferences, options.dryRun)) return p.uid ? { ...ref, uid: p.uid } : ref;
    const what = `${object.kind}/${object.metadata.name}`;
    try {
      const stored = p.control
        ? await this.apply(p, decision.ownerReferences, options)
        : await this.patchOwners(p.path, decision.ownerReferences, { ...options, resourceVersion: p.resourceVersion });
      if (options.dryRun) p.preview = stored;
      return stored.metadata.uid ? { ...ref, uid: stored.metadata.uid } : ref;
    } catch (err) {
      throw new Error(`cannot ${p.resourceVersion === undefined ? 'create' : 'update'} ${what}`, { cause: err });
    }
  }

  /** The object as the package has it, owned by compositor's package field manager. */
  private async apply(
    p: Planned,
    ownerReferences: OwnerReference[],
    options: { dryRun: boolean; signal: AbortSignal },
  ): Promise<Stored> {
    const body = { ...p.object, metadata: { ...p.object.metadata, ownerReferences } };
    return this.deps.client.request<Stored>('PATCH', p.path, {
      body,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: FIELD_MANAGER, force: true, ...(options.dryRun ? { dryRun: 'All' } : {}) },
      signal: options.signal,
    });
  }

  /** Sets owner references only; the resourceVersion makes a concurrent change a conflict, retried. */
  private async patchOwners(
    path: string,
    ownerReferences: OwnerReference[],
    options: { resourceVersion: string | undefined; signal: AbortSignal; dryRun?: boolean },
  ): Promise<Stored> {
    const { resourceVersion, signal, dryRun = false } = options;
    return this.deps.client.request<Stored>('PATCH', path, {
      body: { metadata: { ownerReferences, ...(resourceVersion ? { resourceVersion } : {}) } },
      contentType: CONTENT_TYPE.mergePatch,
      ...(dryRun ? { query: { dryRun: 'All' } } : {}),
      signal,
    });
  }
}

/**
 * Whether the object needs no write: an owner-only write that changes no owner reference, or (after the dry run) an
 * apply that changes nothing.
 */
function upToDate(p: Planned, ownerReferences: OwnerReference[], dryRun: boolean): boolean {
  if (!p.control) return JSON.stringify(p.stored) === JSON.stringify(ownerReferences);
  return !dryRun && p.current !== undefined && p.preview !== undefined && unchanged(p.current, p.preview);
}

/**
 * Whether an apply would leave the object as it is stored: equal but for the field managers, which an apply under a
 * manager new to the object always changes, and the resourceVersion.
 */
function unchanged(current: Stored, preview: Stored): boolean {
  const strip = ({ metadata, ...rest }: Stored): unknown => {
    const { managedFields: _m, resourceVersion: _r, ...kept } = metadata;
    return { ...rest, metadata: kept };
  };
  return isDeepStrictEqual(strip(current), strip(preview));
}

function isKindOf(kinds: readonly string[], o: PackageObject): o is PackageObject & { metadata: { name: string } } {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  return kinds.includes(`${group}/${o.kind}`) && typeof o.metadata?.name === 'string';
}

/** commonLabels and commonAnnotations over the object's own, as upstream's establisher adds them. */
function withCommonMetadata<T extends PackageObject & { metadata: { name: string } }>(o: T, input: EstablishInput): T {
  const labels = { ...(o.metadata.labels ?? {}), ...(input.commonLabels ?? {}) };
  const annotations = { ...(o.metadata.annotations ?? {}), ...(input.commonAnnotations ?? {}) };
  const metadata = {
    ...o.metadata,
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  return { ...o, metadata };
}

/** How upstream sorts objectRefs: by "group/version, Kind=kind/name", descending. */
function identifier(ref: ObjectRef): string {
  const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') : ['', ref.apiVersion];
  return `${group ?? ''}/${version ?? ''}, Kind=${ref.kind}/${ref.name}`;
}
