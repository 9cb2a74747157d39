// compositor's client certificate for the functions it runs (crossplane-tls-client), kept fresh while the engine
// runs. The replica that runs the package controller issues and renews it; the others only read what that one wrote.
// Nothing here ever fails the engine's start: a Secret that cannot be had yet (no namespace, no rights) is retried
// with backoff and reported in the log and by `problem()`, which failing function calls quote.
import type { Logger } from 'pino';
import { backoffDelay, errorMessage, systemClock, type Backoff, type Clock, type Timer } from '../base/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { renewAt } from './certificates.js';
import { CLIENT_SECRET, clientDnsNames } from './names.js';
import type { TlsBundle, TlsSecrets } from './secrets.js';

export interface ClientCertificateOptions {
  secrets: TlsSecrets;
  /** compositor's namespace, for the certificate's DNS name. */
  namespace: string;
  /** Issue and renew (the replica running the package controller), or only read. */
  issue: boolean;
  logger: Logger;
  clock?: Clock;
  /** Between checks while the certificate is held, so a renewal by another replica or a new CA is seen. Default 1m. */
  refreshMs?: number;
  /** After a failed attempt. Default 1s doubling to 60s, as the work queues back off. */
  backoff?: Backoff;
}

/**
 * The client certificate and the CA it trusts, as last loaded. `current()` changes identity only when the contents
 * change, so a caller can rebuild its channel credentials on a new object.
 *
 * @example
 * const cert = new ClientCertificate({ secrets, namespace, issue: true, logger });
 * await cert.start(); // one attempt; never throws
 * cert.current(); // the bundle, or undefined with cert.problem() saying why
 */
export class ClientCertificate implements Lifecycle {
  private bundle: TlsBundle | undefined;
  private lastError: string | undefined;
  private failures = 0;
  private timer: Timer | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private readonly clock: Clock;

  constructor(private readonly options: ClientCertificateOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Makes one attempt and schedules the next; resolves whether or not it succeeded. */
  async start(): Promise<void> {
    await this.refresh();
  }

  stop(): Promise<void> {
    this.abort.abort();
    this.timer?.cancel();
    return Promise.resolve();
  }

  /** Resolves once the attempt a timer started has ended (for tests on a manual clock). */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  current(): TlsBundle | undefined {
    return this.bundle;
  }

  /** Why there is no certificate yet, for the error of a call that needs one. */
  problem(): string {
    if (this.lastError !== undefined) return `cannot load the client certificate ${CLIENT_SECRET}: ${this.lastError}`;
    return this.options.issue
      ? `the client certificate ${CLIENT_SECRET} is not issued yet`
      : `the client certificate ${CLIENT_SECRET} is not issued yet (shard 0's package controller issues it)`;
  }

  /** Loads (issuing or renewing when this replica issues) and schedules the next attempt. Never throws. */
  async refresh(): Promise<void> {
    this.timer?.cancel();
    if (this.stopped()) return;
    try {
      const loaded = await this.load();
      this.accept(loaded);
    } catch (err) {
      this.fail(err);
    }
    if (this.stopped()) return;
    this.timer = this.clock.setTimer(() => {
      this.inFlight = this.refresh();
    }, this.nextDelayMs());
  }

  private stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private load(): Promise<TlsBundle | undefined> {
    const { secrets, issue, namespace } = this.options;
    const signal = this.abort.signal;
    if (!issue) return secrets.readLeaf(CLIENT_SECRET, signal);
    return secrets.ensureLeaf({ name: CLIENT_SECRET, dnsNames: clientDnsNames(namespace), usage: 'client' }, signal);
  }

  private accept(loaded: TlsBundle | undefined): void {
    if (loaded === undefined) {
      this.failures++;
      return;
    }
    if (this.lastError !== undefined)
      this.options.logger.info({ secret: CLIENT_SECRET }, 'function client certificate loaded');
    this.failures = 0;
    this.lastError = undefined;
    const same = this.bundle?.cert === loaded.cert && this.bundle.key === loaded.key && this.bundle.ca === loaded.ca;
    if (same) return;
    if (this.bundle !== undefined)
      this.options.logger.info({ secret: CLIENT_SECRET }, 'function client certificate renewed');
    this.bundle = loaded;
  }

  /** Logged once per distinct error, so a retry every minute does not flood the log. */
  private fail(err: unknown): void {
    if (this.abort.signal.aborted) return;
    this.failures++;
    const text = errorMessage(err, { cause: true });
    if (text !== this.lastError) {
      this.options.logger.warn(
        { secret: CLIENT_SECRET, err: text },
        'cannot load the function client certificate; retrying with backoff (functions compositor runs cannot be called until then)',
      );
    }
    this.lastError = text;
  }

  /** Backoff while failing; else the refresh interval, or sooner when the certificate is due for renewal. */
  private nextDelayMs(): number {
    if (this.failures > 0) {
      return backoffDelay(this.options.backoff ?? { baseMs: 1_000, capMs: 60_000 }, this.failures - 1);
    }
    const refresh = this.options.refreshMs ?? 60_000;
    if (this.bundle === undefined || !this.options.issue) return refresh;
    return Math.max(0, Math.min(refresh, renewAt(this.bundle.cert).getTime() - this.clock.now()));
  }
}
