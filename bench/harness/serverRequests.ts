// Requests counted where they land: the API server's own apiserver_request_total, by verb and resource, with the
// benchmark's own requests taken out. kube-apiserver v1.37 labels the counter with verb, group, version, resource,
// subresource, scope, component, code and dry_run, but not the client (no user agent, no user), so the benchmark
// counts what it sends under the same labels (CountingKubeClient) and subtracts it per phase. Only resource requests
// are counted (non-empty resource label): /metrics, /readyz, /openapi and discovery are left out on both sides. The
// API server's own background writes (its identity Lease, every 10 s) are switched off in the plane the scale
// benchmark starts (plane.ts, quietPlaneArgs), so what remains is the controller's.
import { CONTENT_TYPE, KubeClient, type RequestOptions, type Verb } from '../../src/kube/index.js';
import { parsePrometheus, type Sample } from './metrics.js';
import { round } from './util.js';

/** The verbs apiserver_request_total gives requests that change something (server-side apply is APPLY). */
export const SERVER_WRITE_VERBS = ['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION'] as const;
const SERVER_READ_VERBS = new Set(['GET', 'LIST']);

/** `VERB resource[.group][/subresource]`, as the API server labels a request. */
export type RequestCounts = Record<string, number>;

function keyOf(verb: string, resource: string, group: string, subresource: string): string {
  return `${verb} ${resource}${group === '' ? '' : `.${group}`}${subresource === '' ? '' : `/${subresource}`}`;
}

/** apiserver_request_total by request key, resource requests only. */
export function serverCounts(samples: readonly Sample[]): RequestCounts {
  const out: RequestCounts = {};
  for (const s of samples) {
    if (s.name !== 'apiserver_request_total' || !s.labels.resource) continue;
    const key = keyOf(s.labels.verb ?? '', s.labels.resource, s.labels.group ?? '', s.labels.subresource ?? '');
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/**
 * How the API server labels a request the client sends: the verb (a GET of a collection is LIST, of a watch WATCH;
 * a PATCH with an apply body is APPLY) and the resource, group and subresource from the path. Undefined for
 * non-resource paths (/metrics, /version, discovery).
 */
export function requestKeyOf(method: Verb, path: string, options: RequestOptions = {}): string | undefined {
  const target = resourceOf(path);
  if (target === undefined) return undefined;
  const [resource, name, subresource = ''] = target.rest;
  if (resource === undefined) return undefined;
  return keyOf(verbOf(method, name !== undefined, options), resource, target.group, subresource);
}

/** The group and the path after the version (namespaces/<ns> dropped), or undefined for a non-resource path. */
function resourceOf(path: string): { group: string; rest: string[] } | undefined {
  const segments =
    path
      .split('?')[0]
      ?.split('/')
      .filter((s) => s !== '') ?? [];
  let target: { group: string; rest: string[] };
  if (segments[0] === 'api' && segments.length >= 3) target = { group: '', rest: segments.slice(2) };
  else if (segments[0] === 'apis' && segments.length >= 4)
    target = { group: segments[1] ?? '', rest: segments.slice(3) };
  else return undefined;
  // A namespaced request: namespaces/<ns>/<resource>...; namespaces/<ns> alone is the Namespace itself.
  if (target.rest[0] === 'namespaces' && target.rest.length >= 3) target.rest = target.rest.slice(2);
  return target;
}

function verbOf(method: Verb, named: boolean, options: RequestOptions): string {
  const watch = options.query?.watch;
  if (method === 'GET') return watch === true || watch === 'true' || watch === 1 ? 'WATCH' : named ? 'GET' : 'LIST';
  if (method === 'PATCH' && options.contentType === CONTENT_TYPE.apply) return 'APPLY';
  if (method === 'DELETE' && !named) return 'DELETECOLLECTION';
  return method;
}

/** A KubeClient that counts every resource request it sends, labelled as the API server labels it. */
export class CountingKubeClient extends KubeClient {
  private readonly counts: RequestCounts = {};

  override async request<T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await super.request<T>(method, path, options);
        this.count(method, path, options);
        return result;
      } catch (err) {
        // A loaded API server may close the connection (HTTP/2 GOAWAY) with the request unanswered: it is sent again
        // on a new one, and not counted, since the server never saw it.
        if (attempt < 4 && isGoAway(err)) continue;
        // Counted: the API server counts its errors too.
        this.count(method, path, options);
        throw err;
      }
    }
  }

  private count(method: Verb, path: string, options: RequestOptions): void {
    const key = requestKeyOf(method, path, options);
    if (key !== undefined) this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  /** What this client has sent so far, by request key. */
  sent(): RequestCounts {
    return { ...this.counts };
  }

  /**
   * The API server's apiserver_request_total now, by request key, and the CPU it has used (process_cpu_seconds_total),
   * from one scrape (no resource request).
   */
  async serverCounts(): Promise<{ counts: RequestCounts; cpuSeconds: number | undefined }> {
    const samples = parsePrometheus(await this.request<string>('GET', '/metrics'));
    return { counts: serverCounts(samples), cpuSeconds: cpuSecondsOf(samples) };
  }
}

/** A request that failed because the server closed its connection (GOAWAY) before answering it. */
function isGoAway(err: unknown): boolean {
  const cause = (err as { cause?: { message?: unknown } } | undefined)?.cause;
  return err instanceof TypeError && typeof cause?.message === 'string' && cause.message.includes('GOAWAY');
}

/** The process's CPU seconds, user and system, as its Prometheus process collector reports them. */
function cpuSecondsOf(samples: readonly Sample[]): number | undefined {
  return samples.find((s) => s.name === 'process_cpu_seconds_total')?.value;
}

/** Both sides of the count at one moment, and the API server's CPU seconds so far. */
export interface CountMark {
  server: RequestCounts;
  own: RequestCounts;
  serverCpuSeconds: number | undefined;
  at: number;
}

export async function mark(client: CountingKubeClient): Promise<CountMark> {
  const { counts, cpuSeconds } = await client.serverCounts();
  return { server: counts, own: client.sent(), serverCpuSeconds: cpuSeconds, at: Date.now() };
}

/**
 * CPU seconds the API server used between two marks (the benchmark's own requests included: they cannot be told
 * apart), or null when it reports none.
 */
export function serverCpuBetween(from: CountMark, to: CountMark): number | null {
  if (from.serverCpuSeconds === undefined || to.serverCpuSeconds === undefined) return null;
  return round(to.serverCpuSeconds - from.serverCpuSeconds, 2);
}

/** Requests of everyone but the benchmark between two marks: the server's count minus the benchmark's own. */
export function othersBetween(from: CountMark, to: CountMark): RequestCounts {
  const out: RequestCounts = {};
  for (const key of new Set([...Object.keys(to.server), ...Object.keys(from.server)])) {
    const server = (to.server[key] ?? 0) - (from.server[key] ?? 0);
    const own = (to.own[key] ?? 0) - (from.own[key] ?? 0);
    const value = server - own;
    if (value !== 0) out[key] = value;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The benchmark's own requests between two marks. */
export function ownBetween(from: CountMark, to: CountMark): RequestCounts {
  const out: RequestCounts = {};
  for (const [key, value] of Object.entries(to.own)) {
    const sent = value - (from.own[key] ?? 0);
    if (sent !== 0) out[key] = sent;
  }
  return out;
}

function verbOfKey(key: string): string {
  return key.slice(0, key.indexOf(' '));
}

/** Writes among the counts (POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION). */
export function writesOf(counts: RequestCounts): number {
  const verbs = new Set<string>(SERVER_WRITE_VERBS);
  return Object.entries(counts).reduce((t, [key, n]) => t + (verbs.has(verbOfKey(key)) ? n : 0), 0);
}

/** Reads among the counts (GET, LIST; watches are counted apart). */
export function readsOf(counts: RequestCounts): number {
  return Object.entries(counts).reduce((t, [key, n]) => t + (SERVER_READ_VERBS.has(verbOfKey(key)) ? n : 0), 0);
}

/**
 * The Event writes among the counts, by request key: both Event APIs, core `events` (client-go's record package, which
 * controller-runtime's GetEventRecorderFor and so Crossplane write through) and `events.k8s.io` (compositor's), so two
 * controllers are compared whichever API each uses.
 */
export function eventWritesOf(counts: RequestCounts): RequestCounts {
  const verbs = new Set<string>(SERVER_WRITE_VERBS);
  return Object.fromEntries(
    Object.entries(counts).filter(([key]) => {
      const resource = key.slice(key.indexOf(' ') + 1);
      return verbs.has(verbOfKey(key)) && (resource === 'events' || resource === 'events.events.k8s.io');
    }),
  );
}

/** kube-apiserver flags that stop its own background writes (the identity Lease renewed every 10 s). */
export const QUIET_API_SERVER_ARGS: readonly string[] = [
  '--feature-gates=APIServerIdentity=false,UnknownVersionInteroperabilityProxy=false',
];

/** One phase as the API server counted it, the benchmark's own requests subtracted. */
export interface ServerPhase {
  writes: number;
  reads: number;
  /** By `VERB resource[.group][/subresource]`, as apiserver_request_total labels them. */
  byRequest: RequestCounts;
}

/** The requests of everyone but the benchmark between two marks, writes and reads summed. */
export function serverPhase(from: CountMark, to: CountMark): ServerPhase {
  const byRequest = othersBetween(from, to);
  return { writes: writesOf(byRequest), reads: readsOf(byRequest), byRequest };
}
