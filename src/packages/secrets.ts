// The TLS Secrets of the function runtime: the root CA (crossplane-root-ca: tls.crt, tls.key), each Function's server
// certificate (<function>-tls-server) and compositor's client certificate (crossplane-tls-client), the leaves holding
// tls.crt, tls.key and ca.crt as Crossplane's do. A missing or unusable CA is generated; a leaf is reissued when
// it is missing, signed by another CA, names other hosts or nears expiry (certificates.ts).
import type { OwnerReference } from '../apis/index.js';
import { CONTENT_TYPE, getIfExists, type KubeClient } from '../kube/index.js';
import { generateCa, issueLeaf, needsReissue, validCa, type KeyPair, type LeafUsage } from './certificates.js';
import { ROOT_CA_SECRET } from './names.js';

interface Secret {
  metadata: { name: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const decode = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
const encode = (value: string): string => Buffer.from(value, 'utf8').toString('base64');

export interface SecretsOptions {
  client: KubeClient;
  namespace: string;
  now?: () => Date;
}

/** A leaf Secret's contents, as a function or compositor's client reads them. */
export interface TlsBundle extends KeyPair {
  ca: string;
}

export interface LeafSpec {
  name: string;
  dnsNames: readonly string[];
  usage: LeafUsage;
  owner?: OwnerReference;
}

export class TlsSecrets {
  constructor(private readonly options: SecretsOptions) {}

  private path(name?: string): string {
    const base = `/api/v1/namespaces/${this.options.namespace}/secrets`;
    return name === undefined ? base : `${base}/${name}`;
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  /** The root CA, generated and stored when absent or unusable. */
  async ensureCa(signal?: AbortSignal): Promise<KeyPair> {
    const existing = await getIfExists<Secret>(this.options.client, this.path(ROOT_CA_SECRET), signal);
    const found = { cert: decode(existing?.data?.['tls.crt']), key: decode(existing?.data?.['tls.key']) };
    if (validCa(found, this.now())) return found;
    const ca = await generateCa(this.now());
    await this.write(ROOT_CA_SECRET, { 'tls.crt': ca.cert, 'tls.key': ca.key }, undefined, signal).catch(
      (err: unknown) => {
        throw new Error(`cannot create or update secret: ${ROOT_CA_SECRET}`, { cause: err });
      },
    );
    return ca;
  }

  /** A leaf certificate Secret for `dnsNames`, (re)issued when needed; returns what it holds. */
  async ensureLeaf(leafSpec: LeafSpec, signal?: AbortSignal): Promise<TlsBundle> {
    const { name, dnsNames, usage, owner } = leafSpec;
    const ca = await this.ensureCa(signal);
    const existing = await getIfExists<Secret>(this.options.client, this.path(name), signal);
    const cert = decode(existing?.data?.['tls.crt']);
    const key = decode(existing?.data?.['tls.key']);
    if (cert !== undefined && key !== undefined && !(await needsReissue(cert, ca.cert, dnsNames, this.now()))) {
      return { cert, key, ca: ca.cert };
    }
    const leaf = await issueLeaf(ca, dnsNames, usage, this.now());
    const data = { 'tls.crt': leaf.cert, 'tls.key': leaf.key, 'ca.crt': ca.cert };
    await this.write(name, data, owner, signal).catch((err: unknown) => {
      throw new Error(`cannot create or update secret: ${name}`, { cause: err });
    });
    return { ...leaf, ca: ca.cert };
  }

  /** Server-side applies the Secret's data (and owner) under compositor's field manager. */
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
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, encode(v)])),
    };
    await this.options.client.request('PATCH', this.path(name), {
      body,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: FIELD_MANAGER, force: true },
      signal,
    });
  }
}

/** The field manager of every object the package runtime writes. */
export const FIELD_MANAGER = 'compositor/packages';
