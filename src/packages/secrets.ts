// The TLS Secrets of the function runtime: the root CA (crossplane-root-ca: tls.crt, tls.key), each Function's server
// certificate (<function>-tls-server) and compositor's client certificate (crossplane-tls-client), the leaves holding
// tls.crt, tls.key and ca.crt as Crossplane's do. A missing or unusable CA is generated; a leaf is reissued when
// it is missing, signed by another CA, names other hosts or nears expiry (certificates.ts).
import type { OwnerReference } from '../apis/index.js';
import { dateOf, systemClock, type Clock } from '../base/index.js';
import { getIfExists, isAlreadyExists, serverSideApply, type KubeClient } from '../kube/index.js';
import { generateCa, issueLeaf, needsReissue, validCa, type KeyPair, type LeafUsage } from './certificates.js';
import { ROOT_CA_SECRET } from './names.js';

interface Secret {
  metadata: { name: string; resourceVersion?: string; ownerReferences?: OwnerReference[] };
  data?: Record<string, string>;
}

const decode = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
const encode = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

export interface SecretsOptions {
  client: KubeClient;
  namespace: string;
  /** Certificate validity is judged and issued from this clock's time; the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
}

/** A leaf Secret's contents, as a function or compositor's client reads them. */
export interface TlsBundle extends KeyPair {
  ca: string;
}

export interface LeafSpec {
  name: string;
  dnsNames: readonly string[];
  usage: LeafUsage;
  /** The Secret's controller (a Function's server Secret: its active revision, as upstream). */
  owner?: OwnerReference;
}

export class TlsSecrets {
  /** The CA being loaded or made: concurrent callers share it, so one process never makes two CAs. */
  private ca: Promise<KeyPair> | undefined;

  constructor(private readonly options: SecretsOptions) {}

  private path(name?: string): string {
    const base = `/api/v1/namespaces/${this.options.namespace}/secrets`;
    return name === undefined ? base : `${base}/${name}`;
  }

  private now(): Date {
    return dateOf(this.options.clock ?? systemClock);
  }

  /** The root CA, generated and stored when absent or unusable. */
  ensureCa(signal?: AbortSignal): Promise<KeyPair> {
    this.ca ??= this.loadOrMakeCa(signal).finally(() => {
      this.ca = undefined;
    });
    return this.ca;
  }

  /**
   * Creates a missing CA (when another process created it first, that one is used) and replaces an unusable one
   * only if it did not change meanwhile (an update with its resourceVersion), so two replicas never end up trusting
   * different CAs.
   */
  private async loadOrMakeCa(signal?: AbortSignal): Promise<KeyPair> {
    const existing = await getIfExists<Secret>(this.options.client, this.path(ROOT_CA_SECRET), signal);
    const found = { cert: decode(existing?.data?.['tls.crt']), key: decode(existing?.data?.['tls.key']) };
    if (validCa(found, this.now())) return found;
    const ca = await generateCa(this.now());
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: ROOT_CA_SECRET, namespace: this.options.namespace, ...resourceVersionOf(existing) },
      data: { 'tls.crt': encode(ca.cert), 'tls.key': encode(ca.key) },
    };
    const write =
      existing === undefined
        ? this.options.client.request('POST', this.path(), { body, signal })
        : this.options.client.request('PUT', this.path(ROOT_CA_SECRET), { body, signal });
    try {
      await write;
    } catch (err) {
      if (isAlreadyExists(err)) return this.loadOrMakeCa(signal);
      throw new Error(`cannot create or update secret: ${ROOT_CA_SECRET}`, { cause: err });
    }
    return ca;
  }

  /** A leaf certificate Secret for `dnsNames`, (re)issued when needed; returns what it holds. */
  async ensureLeaf(leafSpec: LeafSpec, signal?: AbortSignal): Promise<TlsBundle> {
    const { name, dnsNames, usage, owner } = leafSpec;
    const ca = await this.ensureCa(signal);
    const existing = await getIfExists<Secret>(this.options.client, this.path(name), signal);
    const kept = await this.keep(existing, ca, leafSpec);
    if (kept !== undefined) {
      const owned = owner === undefined || existing?.metadata.ownerReferences?.some((o) => o.uid === owner.uid);
      if (owned !== true) await this.write(name, existing?.data ?? {}, owner, signal);
      return kept;
    }
    const leaf = await issueLeaf(ca, dnsNames, usage, this.now());
    const data = { 'tls.crt': encode(leaf.cert), 'tls.key': encode(leaf.key), 'ca.crt': encode(ca.cert) };
    await this.write(name, data, owner, signal);
    return { ...leaf, ca: ca.cert };
  }

  /** The Secret's certificate when it needs no reissue. */
  private async keep(existing: Secret | undefined, ca: KeyPair, leafSpec: LeafSpec): Promise<TlsBundle | undefined> {
    const cert = decode(existing?.data?.['tls.crt']);
    const key = decode(existing?.data?.['tls.key']);
    if (cert === undefined || key === undefined) return undefined;
    if (await needsReissue(cert, ca.cert, leafSpec.dnsNames, this.now())) return undefined;
    return { cert, key, ca: ca.cert };
  }

  /** What a leaf Secret holds, or undefined while it is missing or incomplete: for replicas that issue nothing. */
  async readLeaf(name: string, signal?: AbortSignal): Promise<TlsBundle | undefined> {
    const existing = await getIfExists<Secret>(this.options.client, this.path(name), signal);
    const [cert, key, ca] = ['tls.crt', 'tls.key', 'ca.crt'].map((k) => decode(existing?.data?.[k]));
    if (!cert || !key || !ca) return undefined;
    return { cert, key, ca };
  }

  /** Server-side applies the Secret's (encoded) data and owner under compositor's field manager. */
  private async write(
    name: string,
    data: Record<string, string>,
    owner: OwnerReference | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: this.options.namespace, ...(owner ? { ownerReferences: [owner] } : {}) },
      data,
    };
    await serverSideApply(this.options.client, this.path(name), body, { fieldManager: FIELD_MANAGER, signal }).catch(
      (err: unknown) => {
        throw new Error(`cannot create or update secret: ${name}`, { cause: err });
      },
    );
  }
}

function resourceVersionOf(secret: Secret | undefined): { resourceVersion?: string } {
  const rv = secret?.metadata.resourceVersion;
  return rv === undefined ? {} : { resourceVersion: rv };
}

/** The field manager of every object the package runtime writes. */
export const FIELD_MANAGER = 'compositor/packages';
