// An in-memory OpsStore that keeps resourceVersions as the API server does: every write bumps one, a write that
// carries a stale one is a 409 Conflict, a create of a taken name a 409 AlreadyExists.
import type { Clock } from '../../../src/base/index.js';
import { ApiError } from '../../../src/kube/index.js';
import type { AppliedObject, OpsKind, OpsObject, OpsStore } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/index.js';

type Stored = OpsObject;

export class FakeOpsStore implements OpsStore {
  readonly objects = new Map<string, Stored>();
  readonly applied: { object: AppliedObject; fieldManager: string }[] = [];
  readonly secrets = new Map<string, Record<string, string>>();
  readonly deleted: string[] = [];
  /** Set to make the next calls of a method fail with this error. */
  readonly failing = new Map<keyof OpsStore, Error>();
  private version = 0;
  private uid = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  private key(kind: OpsKind, name: string): string {
    return `${kind}/${name}`;
  }

  private check(method: keyof OpsStore): void {
    const err = this.failing.get(method);
    if (err !== undefined) throw err;
  }

  private nextVersion(): string {
    this.version += 1;
    return String(this.version);
  }

  /** Stores an object as if created through the API (uid, resourceVersion, creationTimestamp filled when absent). */
  put<T extends Stored>(object: T): T {
    const stored = structuredClone(object);
    stored.metadata.uid ??= `uid-${String((this.uid += 1))}`;
    stored.metadata.resourceVersion = this.nextVersion();
    stored.metadata.creationTimestamp ??= new Date(this.clock.now()).toISOString().replace('.000Z', 'Z');
    this.objects.set(this.key(stored.kind, stored.metadata.name), stored);
    return structuredClone(stored);
  }

  read<T extends Stored>(kind: T['kind'], name: string): T | undefined {
    const found = this.objects.get(this.key(kind, name));
    return found === undefined ? undefined : (structuredClone(found) as T);
  }

  operations(): Operation[] {
    return [...this.objects.values()].filter((o): o is Operation => o.kind === 'Operation');
  }

  get<K extends OpsKind>(kind: K, name: string): Promise<Extract<OpsObject, { kind: K }> | undefined> {
    this.check('get');
    const found = this.objects.get(this.key(kind, name));
    return Promise.resolve(
      found === undefined ? undefined : (structuredClone(found) as Extract<OpsObject, { kind: K }>),
    );
  }

  listOperations(label: string, owner: string): Promise<Operation[]> {
    this.check('listOperations');
    return Promise.resolve(
      this.operations()
        .filter((op) => op.metadata.labels?.[label] === owner)
        .map((op) => structuredClone(op)),
    );
  }

  createOperation(op: Operation): Promise<Operation> {
    this.check('createOperation');
    if (this.objects.has(this.key('Operation', op.metadata.name))) {
      return Promise.reject(new ApiError(409, 'AlreadyExists', `operations "${op.metadata.name}" already exists`));
    }
    return Promise.resolve(this.put(op));
  }

  deleteOperation(op: Operation): Promise<void> {
    this.check('deleteOperation');
    if (this.objects.delete(this.key('Operation', op.metadata.name))) this.deleted.push(op.metadata.name);
    return Promise.resolve();
  }

  private current<T extends Stored>(object: T): T {
    const stored = this.objects.get(this.key(object.kind, object.metadata.name));
    if (!stored) throw new ApiError(404, 'NotFound', `${object.kind} "${object.metadata.name}" not found`);
    if (stored.metadata.resourceVersion !== object.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        'the object has been modified; please apply your changes to the latest version',
      );
    }
    return stored as T;
  }

  updateStatus<T extends Stored>(object: T): Promise<T> {
    try {
      this.check('updateStatus');
      const stored = this.current(object);
      Object.assign(stored, { status: structuredClone(object.status) });
      stored.metadata.resourceVersion = this.nextVersion();
      return Promise.resolve(structuredClone(stored));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  patchMetadata<T extends Stored>(
    object: T,
    patch: { annotations?: Record<string, string | null>; finalizers?: string[] },
  ): Promise<T> {
    try {
      this.check('patchMetadata');
      const stored = this.current(object);
      const merged = { ...stored.metadata.annotations, ...patch.annotations };
      stored.metadata.annotations = Object.fromEntries(
        Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null),
      );
      if (patch.finalizers) stored.metadata.finalizers = [...patch.finalizers];
      stored.metadata.resourceVersion = this.nextVersion();
      return Promise.resolve(structuredClone(stored));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  apply(object: AppliedObject, fieldManager: string): Promise<void> {
    this.check('apply');
    this.applied.push({ object: structuredClone(object), fieldManager });
    return Promise.resolve();
  }

  getSecret(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    return Promise.resolve(this.secrets.get(`${namespace}/${name}`));
  }
}

export const signal: AbortSignal = new AbortController().signal;
