import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import {
  CONNECTION_SECRET_TYPE,
  readSecretData,
  type CachedSecret,
  type KubeClient,
  type SecretObject,
} from '../kube/index.js';
import type { Informer, InformerLease, InformerRegistry } from '../watch/index.js';

/** The field selector of the connection Secret informer: only Secrets of Crossplane's connection type. */
export const CONNECTION_SECRET_SELECTOR = `type=${CONNECTION_SECRET_TYPE}`;

/** Connection Secrets as the composite and claim reconcilers read them. */
export interface ConnectionSecretReader {
  /**
   * What the synced cache holds of a Secret (its copy, or none: the cache holds only connection Secrets); undefined
   * while the cache has not synced.
   */
  cached(namespace: string, name: string): CachedSecret | undefined;
  /**
   * A Secret's data, base64 values as stored: from the cache, or from the API server when the cache has no copy
   * (not synced yet, a Secret of another type, one just written whose watch event is not in); undefined when it does
   * not exist.
   */
  data(namespace: string, name: string, signal?: AbortSignal): Promise<Record<string, string> | undefined>;
}

export interface ConnectionSecretsOptions {
  informers: Pick<InformerRegistry, 'acquire'>;
  client: KubeClient;
  logger: Logger;
}

/**
 * Connection Secrets served from one informer of the Secrets of type connection.crossplane.io/v1alpha1 (a field
 * selector: the API server sends no other Secret), shared through the InformerRegistry by every controller that
 * reads them. Connection Secrets are what compositor, Crossplane and providers write for XRs, claims and managed
 * resources, so the cache holds those and nothing else: no credentials or service account tokens, and memory that
 * grows with the connection Secrets rather than every Secret of the cluster. Crossplane reads every Secret from the
 * API server (its client's cache is disabled for Secrets); this informer needs no right the chart does not grant
 * (list and watch of Secrets). The informer starts with the first read, which does not wait for its first list;
 * until then, and on every miss, the API server answers.
 *
 * @example
 * const secrets = new ConnectionSecrets({ informers, client, logger });
 * const data = await secrets.data('crossplane-system', 'my-db-conn', signal);
 */
export class ConnectionSecrets implements ConnectionSecretReader {
  private lease: Promise<InformerLease<SecretObject> | undefined> | undefined;
  private informer: Informer<SecretObject> | undefined;
  private stopped = false;

  constructor(private readonly options: ConnectionSecretsOptions) {}

  cached(namespace: string, name: string): CachedSecret | undefined {
    this.watch();
    const informer = this.informer;
    if (!informer?.hasSynced || informer.isStopped()) return undefined;
    return { found: informer.store.get(`${namespace}/${name}`) };
  }

  async data(namespace: string, name: string, signal?: AbortSignal): Promise<Record<string, string> | undefined> {
    const found = this.cached(namespace, name)?.found;
    if (found) return found.data ?? {};
    return readSecretData(this.options.client, namespace, name, signal);
  }

  /** Gives up the informer lease; reads after stop go to the API server. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.informer = undefined;
    const lease = await this.lease;
    this.lease = undefined;
    await lease?.release();
  }

  /** Starts the informer once; a failed start is logged and tried again at the next read. */
  private watch(): void {
    if (this.lease || this.stopped) return;
    this.lease = this.options.informers
      .acquire<SecretObject>('v1', 'Secret', { fieldSelector: CONNECTION_SECRET_SELECTOR })
      .then(
        async (lease) => {
          if (this.stopped) {
            await lease.release();
            return undefined;
          }
          this.informer = lease.informer;
          return lease;
        },
        (err: unknown) => {
          this.options.logger.warn({ err: errorMessage(err) }, 'cannot watch connection Secrets; reading them live');
          this.lease = undefined;
          return undefined;
        },
      );
  }
}
