import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../base/index.js';
import { getIfExists, isAlreadyExists, isConflict, type KubeClient } from '../kube/index.js';
import type { Logger } from './logger.js';

export const LEASE_NAME = 'compositor-leader-election';

/** A standby looks at least this often, so a lease released on shutdown changes hands within seconds. */
const STANDBY_CHECK_MAX_MS = 2_000;

/** Reads and writes a release tries before it gives up and leaves the lease to expire. */
const RELEASE_ATTEMPTS = 3;

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name?: string;
  identity?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log: Logger;
  /** Lease times (wall clock, as other replicas read them) and the pauses between attempts; systemClock unless given. */
  clock?: Clock;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

/** MicroTime as the API server parses it: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election with a coordination.k8s.io/v1 Lease, as client-go does it: a lease is expired when its record
 * has not changed for leaseDuration by this process's own clock (no clock comparison between machines). The leader
 * renews every retry period and gives up when it could not renew for renewDeadline, which is shorter than the lease,
 * so it stops before any standby may take over. A graceful stop releases the lease for an immediate handover.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly path: string;
  private readonly clock: Clock;
  /** The last record seen and when this process first saw it. */
  private observed: { record: string; seenAt: number } | undefined;
  private leading = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    const name = options.name ?? LEASE_NAME;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases/${name}`;
    this.clock = options.clock ?? systemClock;
  }

  /** Waits `ms`, or less when `signal` aborts; never rejects, the caller checks the signal. */
  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return this.clock.sleep(ms, signal).catch(() => undefined);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this process leads, or when `signal` aborts (then isLeader stays false). */
  async acquire(signal: AbortSignal, onStandby: () => void = () => undefined): Promise<void> {
    let announced = false;
    while (!signal.aborted) {
      // An unreachable API server is not fatal here: keep trying until it answers or we are told to stop.
      const acquired = await this.tryAcquireOrRenew(signal).catch((err: unknown) => {
        if (!signal.aborted) this.options.log.warn({ err }, 'cannot read the leader election lease; retrying');
        return false;
      });
      if (acquired) {
        this.leading = true;
        this.options.log.info({ identity: this.identity }, 'became leader');
        return;
      }
      if (!announced) {
        announced = true;
        this.options.log.info({ identity: this.identity }, 'waiting for the leader election lease');
        onStandby();
      }
      await this.pause(Math.min(this.options.retryPeriodMs, STANDBY_CHECK_MAX_MS), signal);
    }
  }

  /**
   * Renews every retry period until `signal` aborts; calls onLost (once) when renewals failed for the renew
   * deadline or another process holds the lease.
   */
  async keepRenewing(signal: AbortSignal, onLost: (why: string) => void): Promise<void> {
    let lastRenewed = this.clock.now();
    for (;;) {
      await this.pause(this.options.retryPeriodMs, signal);
      // Released meanwhile: renewing now would take back the lease just handed to a standby.
      if (signal.aborted || !this.leading) return;
      if (await this.renew(signal).catch(() => false)) {
        lastRenewed = this.clock.now();
      } else if (this.clock.now() - lastRenewed >= this.options.renewDeadlineMs) {
        this.leading = false;
        onLost(`could not renew the lease for ${Math.round(this.options.renewDeadlineMs / 1000)}s`);
        return;
      }
    }
  }

  /**
   * Hands the lease back (empty holder) so a standby takes over at its next check. A renewal already under way when
   * the release began may write the lease between our read and our write: the conflict that follows is retried with a
   * fresh read, or the standby would wait a whole lease duration.
   */
  async release(): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const lease = await getIfExists<Lease>(this.options.client, this.path, AbortSignal.timeout(5_000));
        if (lease?.spec?.holderIdentity !== this.identity) return;
        const spec: LeaseSpec = {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: microTime(this.clock.now()),
        };
        await this.options.client.request('PUT', this.path, {
          body: { ...lease, spec },
          signal: AbortSignal.timeout(5_000),
        });
        this.options.log.info('released the leader election lease');
        return;
      } catch (err) {
        if (isConflict(err) && attempt < RELEASE_ATTEMPTS) continue;
        this.options.log.warn({ err }, 'cannot release the leader election lease');
        return;
      }
    }
  }

  /** One attempt: true when this process holds the lease afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const timeout = this.attemptSignal(signal);
    const now = this.clock.now();
    const lease = await getIfExists<Lease>(this.options.client, this.path, timeout);
    if (!lease) return this.create(now, timeout);
    if (this.heldByAnother(lease.spec ?? {}, now)) return false;
    return this.write(lease, now, timeout);
  }

  /**
   * A leader's renewal: never takes a lease this process does not hold, nor one it released while this attempt was
   * reading it, which would take back a lease just handed to a standby.
   */
  private async renew(signal: AbortSignal): Promise<boolean> {
    const timeout = this.attemptSignal(signal);
    const lease = await getIfExists<Lease>(this.options.client, this.path, timeout);
    if (!lease || lease.spec?.holderIdentity !== this.identity || !this.leading) return false;
    return this.write(lease, this.clock.now(), timeout);
  }

  private attemptSignal(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(this.options.retryPeriodMs)]);
  }

  /** Writes this process's record over `lease`; false when another write came first (a conflict). */
  private async write(lease: Lease, now: number, signal: AbortSignal): Promise<boolean> {
    const spec = lease.spec ?? {};
    const mine = spec.holderIdentity === this.identity;
    const next: LeaseSpec = {
      ...this.record(now),
      acquireTime: mine ? (spec.acquireTime ?? microTime(now)) : microTime(now),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
    };
    try {
      await this.options.client.request('PUT', this.path, { body: { ...lease, spec: next }, signal });
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** Another process holds the lease and its record changed within the lease duration, by this process's clock. */
  private heldByAnother(spec: LeaseSpec, now: number): boolean {
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
    if (this.observed?.record !== record) this.observed = { record, seenAt: now };
    const holder = spec.holderIdentity ?? '';
    if (holder === '' || holder === this.identity) return false;
    return this.observed.seenAt + (spec.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private record(now: number): LeaseSpec {
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      renewTime: microTime(now),
    };
  }

  private async create(now: number, signal: AbortSignal): Promise<boolean> {
    const { namespace } = this.options;
    const name = this.options.name ?? LEASE_NAME;
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: { ...this.record(now), acquireTime: microTime(now), leaseTransitions: 0 },
    };
    try {
      await this.options.client.request('POST', this.path.slice(0, this.path.lastIndexOf('/')), {
        body: lease,
        signal,
      });
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      throw err;
    }
  }
}
