import { CONTENT_TYPE, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { get } from './engine.js';
import {
  create,
  CROSSPLANE,
  must,
  put,
  update,
  type Condition,
  type Stored,
  type WriteRecord,
} from './crossplaneReplay.js';

// Crossplane v2.3's package manager installing a Configuration, and its next reconciles, made as its source makes
// them, for the migration tests (no Crossplane binary runs). Every request is a plain one under Crossplane's manager
// `crossplane`; the package manager never applies server-side:
// - the Configuration's reconciler (internal/controller/pkg/manager/reconciler.go) names the revision
//   xpkg.FriendlyID(name, digest), labels it `pkg.crossplane.io/package`, makes the Configuration its controller
//   (blockOwnerDeletion), copies the pull and constraint settings and writes it with an APIPatchingApplicator (a
//   create, then merge patches of the whole revision); its status is a Status().Update: Installed
//   (ActivePackageRevision), Healthy (HealthyPackageRevision), currentRevision, currentIdentifier, resolvedPackage;
// - the revision's reconciler (internal/controller/pkg/revision/reconciler.go) adds the finalizer
//   `revision.pkg.crossplane.io` (Update), updates the revision with the package metadata's labels (Update), then its
//   establisher (establisher.go) creates each object with the revision as controller (blockOwnerDeletion) and the
//   Configuration's reference as a plain owner, or updates an existing one (the package's object, the current owner
//   references plus the revision as controller, the current resourceVersion); its status is a Status().Update:
//   RevisionHealthy (HealthyPackageRevision), objectRefs sorted descending by "group/version, Kind=kind/name",
//   resolvedImage (the revision's name for upstream's ResolvedPackage).

export const REVISION_FINALIZER = 'revision.pkg.crossplane.io';
export const LABEL_PACKAGE = 'pkg.crossplane.io/package';
const PKG = 'pkg.crossplane.io/v1';

export interface PackageInstall {
  /** The Configuration as stored (a user made it). */
  configuration: Stored;
  /** The digest its spec.package resolved to. */
  digest: string;
  /** The package's objects (XRDs, Compositions). */
  objects: readonly KubeObject[];
}

export type Owned = Stored & { metadata: Stored['metadata'] & { ownerReferences?: OwnerRef[] } };

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** xpkg.FriendlyID: the package's name cut to 50 characters, a dash, the first 12 hex digits of the digest. */
export function friendlyId(name: string, digest: string): string {
  return `${name.slice(0, 50)}-${digest.replace(/^sha256:/, '').slice(0, 12)}`;
}

/** A reference to `object`, as its controller (blockOwnerDeletion) or as a plain owner. */
export function refTo(object: Stored, controller: boolean): OwnerRef {
  const ref = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    uid: object.metadata.uid ?? '',
  };
  return controller ? { ...ref, controller: true, blockOwnerDeletion: true } : ref;
}

/** The revision the Configuration's reconciler writes, with the CRD's defaults of the Configuration's spec copied. */
function desiredRevision(cfg: Stored, digest: string): Owned {
  const spec = cfg.spec ?? {};
  const copied = Object.fromEntries(
    ['packagePullPolicy', 'packagePullSecrets', 'ignoreCrossplaneConstraints', 'skipDependencyResolution'].flatMap(
      (key) => (spec[key] === undefined ? [] : [[key, spec[key]]]),
    ),
  );
  return {
    apiVersion: PKG,
    kind: 'ConfigurationRevision',
    metadata: {
      name: friendlyId(cfg.metadata.name, digest),
      labels: { [LABEL_PACKAGE]: cfg.metadata.name },
      ownerReferences: [refTo(cfg, true)],
    },
    spec: { desiredState: 'Active', image: String(spec.package), revision: 1, ...copied },
  };
}

/** How the revision reconciler sorts objectRefs: descending by "group/version, Kind=kind/name". */
export function sortedRefs(refs: OwnerRef[]): { apiVersion: string; kind: string; name: string; uid: string }[] {
  const id = (r: OwnerRef): string =>
    `${r.apiVersion.includes('/') ? r.apiVersion : `/${r.apiVersion}`}, Kind=${r.kind}/${r.name}`;
  return [...refs]
    .sort((a, b) => (id(a) > id(b) ? -1 : id(a) < id(b) ? 1 : 0))
    .map(({ apiVersion, kind, name, uid }) => ({ apiVersion, kind, name, uid }));
}

/** A condition True for HealthyPackageRevision, as upstream's RevisionHealthy, RuntimeHealthy and Healthy. */
export function healthy(type: string): Condition {
  return { type, status: 'True', reason: 'HealthyPackageRevision', lastTransitionTime: now() };
}

/** What Crossplane's package manager leaves once a Configuration is installed and healthy: the revision, the objects. */
export async function crossplaneInstall(
  client: KubeClient,
  input: PackageInstall,
): Promise<{ revision: Owned; objects: Owned[] }> {
  const cfg = input.configuration;
  let revision = await create<Owned>(client, desiredRevision(cfg, input.digest), CROSSPLANE);
  await update(client, revision, { metadata: { finalizers: [REVISION_FINALIZER] } });
  revision = await must<Owned>(client, revision);
  const objects: Owned[] = [];
  for (const object of input.objects) {
    const owners = [refTo(revision, true), { ...refTo(cfg, true), controller: false }];
    objects.push(
      await create<Owned>(client, { ...object, metadata: { ...object.metadata, ownerReferences: owners } }, CROSSPLANE),
    );
  }
  const objectRefs = sortedRefs(objects.map((o) => refTo(o, false)));
  const status = { conditions: [healthy('RevisionHealthy')], objectRefs, resolvedImage: revision.spec?.image };
  revision = await put<Owned>(client, { ...revision, status }, '/status');
  const installed = { type: 'Installed', status: 'True', reason: 'ActivePackageRevision', lastTransitionTime: now() };
  await put(
    client,
    {
      ...cfg,
      status: {
        conditions: [installed, healthy('Healthy')],
        currentRevision: revision.metadata.name,
        currentIdentifier: cfg.spec?.package,
        resolvedPackage: cfg.spec?.package,
      },
    },
    '/status',
  );
  return { revision, objects };
}

/**
 * Crossplane's next reconciles of an installed Configuration and its revision, after a switch back: the revision's
 * merge patch and the Configuration's status update, the revision's update, each object's update by the establisher,
 * the revision's status update. Throws what the API server answers; records which writes changed something.
 */
export async function crossplaneResync(client: KubeClient, input: PackageInstall): Promise<WriteRecord> {
  const record: WriteRecord = [];
  const cfg = await must<Stored>(client, input.configuration);
  const want = desiredRevision(cfg, input.digest);
  let revision = await must<Owned>(client, want);
  await recorded(record, 'merge patch ConfigurationRevision', revision, () =>
    client.request<Owned>('PATCH', `/apis/pkg.crossplane.io/v1/configurationrevisions/${want.metadata.name}`, {
      body: want,
      contentType: CONTENT_TYPE.mergePatch,
      query: { fieldManager: CROSSPLANE },
    }),
  );
  await recorded(record, 'update Configuration status', cfg, () => put(client, cfg, '/status'));
  revision = await must<Owned>(client, want);
  revision = await recorded(record, 'update ConfigurationRevision', revision, () => put(client, revision));
  for (const object of input.objects) {
    const current = await must<Owned>(client, object);
    const owners = withController(current.metadata.ownerReferences ?? [], refTo(revision, true));
    const desired = {
      ...object,
      metadata: { ...object.metadata, ownerReferences: owners, resourceVersion: current.metadata.resourceVersion },
    };
    await recorded(record, `update ${object.kind}`, current, () => put(client, desired));
  }
  await recorded(record, 'update ConfigurationRevision status', revision, () => put(client, revision, '/status'));
  return record;
}

/** meta.AddControllerReference: the revision's reference replaced by its controller reference, or added. */
function withController(refs: readonly OwnerRef[], controller: OwnerRef): OwnerRef[] {
  const other = refs.find((r) => r.controller === true && r.uid !== controller.uid);
  if (other) throw new Error(`${controller.name} cannot control: ${other.kind} ${other.name} does`);
  return refs.some((r) => r.uid === controller.uid)
    ? refs.map((r) => (r.uid === controller.uid ? controller : r))
    : [...refs, controller];
}

async function recorded<T extends KubeObject>(
  record: WriteRecord,
  write: string,
  before: Stored,
  run: () => Promise<T>,
): Promise<T> {
  const after = await run();
  const version = (after.metadata as { resourceVersion?: string }).resourceVersion;
  record.push({ write, changed: before.metadata.resourceVersion !== version });
  return after;
}

export function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A package as Crossplane v2.3's revision dependency manager lists it in the Lock. */
export interface CrossplaneLockPackage {
  /** The revision's name. */
  name: string;
  kind: 'Configuration' | 'Provider' | 'Function';
  /** The revision's spec.image. */
  image: string;
}

export const LOCK_FINALIZER = 'lock.pkg.crossplane.io';
export const LOCK_REF = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };

/**
 * The Lock as Crossplane v2.3 leaves it once `packages` are installed: the revision's dependency manager
 * (internal/controller/pkg/revision/dependency.go) creates `lock` when missing and adds each revision with an Update
 * (apiVersion and kind of its package, no type; source without tag; the tag as version; its dependencies, none here),
 * and the resolver (internal/controller/pkg/resolver/reconciler.go) adds its finalizer with an Update and sets
 * Resolved True with a Status().Update. A Lock other test files left is kept, its packages too; a package whose source
 * it lists already is not added again (Crossplane lists one revision per source).
 */
export async function crossplaneLock(client: KubeClient, packages: readonly CrossplaneLockPackage[]): Promise<Stored> {
  type Lock = Stored & { packages?: Record<string, unknown>[] };
  let lock = await get<Lock>(client, LOCK_REF);
  lock ??= await create<Lock>(client, { ...LOCK_REF, metadata: { name: 'lock' } }, CROSSPLANE);
  const listed = new Set((lock.packages ?? []).map((p) => p.source));
  const added = packages
    .map((p) => ({ ...p, at: p.image.lastIndexOf(':') }))
    .filter((p) => !listed.has(p.image.slice(0, p.at)))
    .map(({ at, ...p }) => {
      return {
        apiVersion: PKG,
        kind: p.kind,
        name: p.name,
        source: p.image.slice(0, at),
        version: p.image.slice(at + 1),
        dependencies: [],
      };
    });
  lock = await put<Lock>(client, { ...lock, packages: [...(lock.packages ?? []), ...added] });
  const finalizers = lock.metadata.finalizers ?? [];
  if (!finalizers.includes(LOCK_FINALIZER)) {
    lock = await put<Lock>(client, {
      ...lock,
      metadata: { ...lock.metadata, finalizers: [...finalizers, LOCK_FINALIZER] },
    });
  }
  const resolved = {
    type: 'Resolved',
    status: 'True',
    reason: 'DependencyResolutionSucceeded',
    lastTransitionTime: now(),
  };
  return put<Lock>(client, { ...lock, status: { conditions: [resolved] } }, '/status');
}
