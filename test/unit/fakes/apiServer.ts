// An in-memory API server for unit tests: serves discovery for the kinds it is given, stores objects by path, and
// answers the requests compositor's reconcilers make (GET, POST, PUT, DELETE, server-side apply, JSON patch, merge
// patch) closely enough to test what they write and in which order. Every request is recorded. It is no real API
// server: an apply merges into what is stored (lists replaced) and no field ownership is kept.
import {
  ApiError,
  Discovery,
  type KubeClient,
  type KubeObject,
  type RequestOptions,
  type Verb,
} from '../../../src/kube/index.js';

export interface FakeKind {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface RecordedRequest {
  method: Verb;
  path: string;
  query?: RequestOptions['query'];
  contentType?: string;
  body?: unknown;
}

type Json = Record<string, unknown>;
/** What a request answered by `answer` returns. */
export type Responder = (request: RecordedRequest) => unknown;
type Stored = KubeObject & { metadata: KubeObject['metadata'] & Json };

/** Kinds every test needs: Secrets (connection details), ConfigMaps (composed resources). */
export const CORE_KINDS: FakeKind[] = [
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
];

const APPLY = 'application/apply-patch+yaml';
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';

/** A change to a stored object, as a watch would deliver it. */
export type Change = { type: 'add' | 'update' | 'delete'; object: KubeObject };

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  private readonly watchers: ((change: Change) => void)[] = [];
  private readonly responders: { match: (request: RecordedRequest) => boolean; respond: Responder }[] = [];
  private readonly controllers: { kind: string; act: (object: Json) => void }[] = [];
  private readonly objects = new Map<string, Stored>();
  private readonly failures: { match: (request: RecordedRequest) => boolean; error: unknown }[] = [];
  private version = 100;
  private uids = 0;

  constructor(private readonly kinds: readonly FakeKind[] = CORE_KINDS) {}

  /** A KubeClient whose requests this server answers. */
  readonly client = {
    server: 'https://fake.invalid',
    request: <T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> =>
      Promise.resolve().then(() => this.request(method, path, options) as T),
  } as unknown as KubeClient;

  /** The real Discovery, over this server's discovery documents. */
  readonly discovery = new Discovery(this.client);

  /** Stores an object as if it had been created (a uid and resourceVersion unless it has them); returns it. */
  put<T extends KubeObject>(object: T): T {
    const stored = this.created(structuredClone(object));
    this.objects.set(this.pathOf(stored), stored);
    return structuredClone(stored) as unknown as T;
  }

  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the kind it reads
  get<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
  ): T | undefined {
    const object = this.objects.get(this.pathOf({ apiVersion, kind, metadata: { name, namespace } }));
    return object ? (structuredClone(object) as unknown as T) : undefined;
  }

  /** Every object of a kind. */
  list<T extends KubeObject = KubeObject>(apiVersion: string, kind: string): T[] {
    return [...this.objects.values()]
      .filter((o) => o.apiVersion === apiVersion && o.kind === kind)
      .map((o) => structuredClone(o) as unknown as T);
  }

  /**
   * Calls `watcher` with every change to a stored object, before the request that made it returns (as the API
   * server often delivers a write's watch event before its response).
   */
  watch(watcher: (change: Change) => void): void {
    this.watchers.push(watcher);
  }

  /** Answers every request `match` accepts with what `respond` returns instead (a SelfSubjectAccessReview, say). */
  answer(match: (request: RecordedRequest) => boolean, respond: Responder): void {
    this.responders.push({ match, respond });
  }

  /**
   * Lets `act` change every object of `kind` the server stores, before the write that stored it returns, as the API
   * server's own controllers would (a CRD becomes Established).
   */
  control(kind: string, act: (object: Json) => void): void {
    this.controllers.push({ kind, act });
  }

  /** The requests that change something (all but GET). */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => r.method !== 'GET');
  }

  /** The next request `match` accepts fails with `error` (an ApiError with `status` when given a number). */
  failNext(match: (request: RecordedRequest) => boolean, error: unknown): void {
    this.failures.push({ match, error: typeof error === 'number' ? apiError(error, 'injected failure') : error });
  }

  private request(method: Verb, path: string, options: RequestOptions): unknown {
    const request = recorded(method, path, options);
    this.requests.push(request);
    const failure = this.failures.findIndex((f) => f.match(request));
    if (failure >= 0) {
      const [injected] = this.failures.splice(failure, 1);
      throw injected?.error;
    }
    const responder = this.responders.find((r) => r.match(request));
    if (responder) return responder.respond(request);
    const discovery = this.discoveryDocument(path);
    if (discovery !== undefined) return discovery;
    const { object, subresource } = splitSubresource(path);
    switch (method) {
      case 'GET':
        return this.read(object, options.query?.labelSelector);
      case 'POST':
        return this.create(path, options.body as Stored);
      case 'PUT':
        return this.replace(object, options.body as Stored);
      case 'DELETE':
        return this.remove(object, options.body as Json | undefined);
      case 'PATCH':
        return this.patch(object, subresource, options);
      default:
        throw apiError(405, `method ${String(method)} not supported by the fake`);
    }
  }

  private discoveryDocument(path: string): unknown {
    const served = this.kinds.filter((k) => gvPath(k.apiVersion) === path);
    if (served.length === 0) return undefined;
    return { resources: served.map((k) => ({ name: k.plural, kind: k.kind, namespaced: k.namespaced })) };
  }

  /** An object, or a collection filtered by an equality label selector ("a=1,b=2") when one is given. */
  private read(path: string, labelSelector?: unknown): unknown {
    const stored = this.objects.get(path);
    if (stored) return structuredClone(stored);
    const collection = this.collectionOf(path);
    if (collection === undefined) throw apiError(404, `${path} not found`);
    const wanted = typeof labelSelector === 'string' && labelSelector !== '' ? labelSelector.split(',') : [];
    const items = [...this.objects.values()].filter(
      (o) =>
        o.apiVersion === collection.kind.apiVersion &&
        o.kind === collection.kind.kind &&
        (collection.namespace === undefined || o.metadata.namespace === collection.namespace) &&
        wanted.every((term) => {
          const [key = '', value] = term.split('=');
          return (o.metadata.labels as Record<string, string> | undefined)?.[key] === value;
        }),
    );
    return { items: items.map((o) => structuredClone(o)) };
  }

  /** The kind (and namespace) of a collection path, across namespaces or in one; undefined for any other path. */
  private collectionOf(path: string): { kind: FakeKind; namespace: string | undefined } | undefined {
    for (const kind of this.kinds) {
      const prefix = gvPath(kind.apiVersion);
      if (path === `${prefix}/${kind.plural}`) return { kind, namespace: undefined };
      const inNamespace = new RegExp(`^${prefix}/namespaces/([^/]+)/${kind.plural}$`).exec(path);
      if (inNamespace) return { kind, namespace: inNamespace[1] };
    }
    return undefined;
  }

  private create(collection: string, body: Stored): unknown {
    const path = `${collection}/${body.metadata.name}`;
    if (this.objects.has(path)) throw apiError(409, `${path} already exists`, 'AlreadyExists');
    const stored = this.created(structuredClone(body));
    this.objects.set(path, stored);
    this.emit('add', stored);
    return structuredClone(stored);
  }

  private replace(path: string, body: Stored): unknown {
    const current = this.objects.get(path);
    if (!current) throw apiError(404, `${path} not found`);
    const rv = body.metadata.resourceVersion;
    if (rv !== undefined && rv !== current.metadata.resourceVersion) throw apiError(409, `${path} changed`, 'Conflict');
    const next = structuredClone(body);
    next.metadata = { ...next.metadata, uid: current.metadata.uid };
    return this.store(path, current, next);
  }

  private remove(path: string, options: Json | undefined): unknown {
    const current = this.objects.get(path);
    if (!current) throw apiError(404, `${path} not found`);
    const uid = (options?.preconditions as { uid?: string } | undefined)?.uid;
    if (uid !== undefined && uid !== current.metadata.uid) throw apiError(409, `${path} has another uid`, 'Conflict');
    const finalizers = current.metadata.finalizers as string[] | undefined;
    if (finalizers && finalizers.length > 0) {
      const next = structuredClone(current);
      next.metadata.deletionTimestamp ??= '2026-01-01T00:00:00Z';
      return this.store(path, current, next);
    }
    this.objects.delete(path);
    this.emit('delete', current);
    return { kind: 'Status', status: 'Success' };
  }

  private patch(path: string, subresource: string | undefined, options: RequestOptions): unknown {
    const current = this.objects.get(path);
    const body = structuredClone(options.body) as Json;
    if (options.contentType === APPLY) {
      if (!current) {
        if (subresource !== undefined) throw apiError(404, `${path} not found`);
        const created = this.created(body as Stored);
        this.objects.set(path, created);
        this.emit('add', created);
        return structuredClone(created);
      }
      const next = structuredClone(current);
      if (subresource === 'status') (next as Json).status = merge((next as Json).status, body.status);
      else mergeInto(next, withoutStatus(body));
      return this.store(path, current, next);
    }
    if (!current) throw apiError(404, `${path} not found`);
    if (options.contentType === JSON_PATCH)
      return this.store(path, current, jsonPatch(current, body as unknown as Op[]));
    if (options.contentType === MERGE_PATCH) {
      const next = structuredClone(current);
      mergeInto(next, body, true);
      return this.store(path, current, next);
    }
    throw apiError(415, `content type ${String(options.contentType)} not supported by the fake`);
  }

  /** Stores a new version: a new resourceVersion, a new generation when the spec changed; gone when finalized. */
  private store(path: string, current: Stored, next: Stored): unknown {
    next.metadata.resourceVersion = String(++this.version);
    const generation = (current.metadata.generation as number | undefined) ?? 1;
    const specChanged = JSON.stringify((current as Json).spec) !== JSON.stringify((next as Json).spec);
    next.metadata.generation = specChanged ? generation + 1 : generation;
    const finalizers = next.metadata.finalizers as string[] | undefined;
    if (next.metadata.deletionTimestamp !== undefined && (finalizers ?? []).length === 0) {
      this.objects.delete(path);
      this.emit('delete', next);
      return structuredClone(next);
    }
    this.objects.set(path, next);
    this.emit('update', next);
    return structuredClone(next);
  }

  private emit(type: Change['type'], object: Stored): void {
    if (type !== 'delete') for (const { kind, act } of this.controllers) if (object.kind === kind) act(object);
    for (const watcher of this.watchers) watcher({ type, object: structuredClone(object) });
  }

  private created(object: Stored): Stored {
    object.metadata.uid ??= `uid-${++this.uids}`;
    object.metadata.resourceVersion ??= String(++this.version);
    object.metadata.generation ??= 1;
    return object;
  }

  private pathOf(object: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): string {
    const kind = this.kinds.find((k) => k.apiVersion === object.apiVersion && k.kind === object.kind);
    if (!kind) throw new Error(`the fake API server does not serve ${object.kind} of ${object.apiVersion}`);
    const scope = kind.namespaced ? `/namespaces/${object.metadata.namespace ?? 'default'}` : '';
    return `${gvPath(kind.apiVersion)}${scope}/${kind.plural}/${object.metadata.name}`;
  }
}

/** An ApiError as the client throws it for a failed request. */
export function apiError(status: number, message: string, reason = REASONS[status] ?? 'Failure'): ApiError {
  return new ApiError(status, reason, message);
}

const REASONS: Record<number, string> = { 404: 'NotFound', 409: 'Conflict', 422: 'Invalid', 500: 'InternalError' };

function recorded(method: Verb, path: string, options: RequestOptions): RecordedRequest {
  const request: RecordedRequest = { method, path };
  if (options.query !== undefined) request.query = options.query;
  if (options.contentType !== undefined) request.contentType = options.contentType;
  if (options.body !== undefined) request.body = structuredClone(options.body);
  return request;
}

function gvPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function splitSubresource(path: string): { object: string; subresource: string | undefined } {
  for (const sub of ['status', 'scale']) {
    if (path.endsWith(`/${sub}`)) return { object: path.slice(0, -sub.length - 1), subresource: sub };
  }
  return { object: path, subresource: undefined };
}

function withoutStatus(body: Json): Json {
  const { status: _status, ...rest } = body;
  return rest;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Merges `patch` into `target`: objects recursively, anything else replaced; with `nulls`, null deletes a field. */
function mergeInto(target: Json, patch: Json, nulls = false): void {
  for (const [key, value] of Object.entries(patch)) {
    if (nulls && value === null) Reflect.deleteProperty(target, key);
    else if (isObject(value) && isObject(target[key])) mergeInto(target[key], value, nulls);
    else target[key] = structuredClone(value);
  }
}

function merge(base: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out = isObject(base) ? structuredClone(base) : {};
  mergeInto(out, patch);
  return out;
}

interface Op {
  op: string;
  path: string;
  value?: unknown;
}

/** The JSON patch operations compositor sends (test, remove, add) on object fields and list items. */
function jsonPatch(current: Stored, ops: readonly Op[]): Stored {
  const next = structuredClone(current) as Json;
  for (const op of ops) applyOp(next, op);
  return next as Stored;
}

function applyOp(target: Json, { op, path, value }: Op): void {
  const keys = path.split('/').slice(1);
  const last = keys.pop() ?? '';
  let parent: unknown = target;
  for (const key of keys) parent = (parent as Json | undefined)?.[key];
  if (parent === undefined) throw apiError(422, `path ${path} does not exist`);
  if (Array.isArray(parent)) applyToList(parent, last === '-' ? parent.length : Number(last), { op, path, value });
  else applyToObject(parent as Json, last, { op, path, value });
}

function applyToList(list: unknown[], index: number, { op, path, value }: Op): void {
  if (op === 'test' && JSON.stringify(list[index]) !== JSON.stringify(value)) {
    throw apiError(422, `test of ${path} failed`);
  }
  if (op === 'remove') list.splice(index, 1);
  else if (op === 'add') list.splice(index, 0, value);
  else if (op !== 'test') throw apiError(422, `op ${op} not supported by the fake`);
}

function applyToObject(object: Json, key: string, { op, path, value }: Op): void {
  if (op === 'test' && JSON.stringify(object[key]) !== JSON.stringify(value)) {
    throw apiError(422, `test of ${path} failed`);
  }
  if (op === 'remove') Reflect.deleteProperty(object, key);
  else if (op === 'add') object[key] = value;
  else if (op !== 'test') throw apiError(422, `op ${op} not supported by the fake`);
}
