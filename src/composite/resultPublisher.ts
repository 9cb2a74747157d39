import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import {
  claimOf,
  describe,
  type ClaimRef,
  type ConnectionSecretReader,
  type StatusDraft,
  type Xr,
  type XrType,
} from '../controller/index.js';
import { goQuote, type PipelineCondition, type PipelineEvent } from '../functions/index.js';
import {
  getIfExists,
  publishConnectionSecret,
  type Discovery,
  type EventSink,
  type KubeClient,
} from '../kube/index.js';
import { publishedData, xrSecretRef } from './connection.js';
import type { RequiredCache } from './requiredKinds.js';

/** Types only compositor may set; conditions of these types returned by functions are dropped. */
export const SYSTEM_CONDITION_TYPES: ReadonlySet<string> = new Set(['Synced', 'Ready', 'Responsive']);

/** An event the composite reconciler records: type, reason and message. */
export interface ReconcileEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * The Normal event upstream records for each composed resource that is not ready after a compose pass (crossplane
 * internal/controller/apiextensions/composite/reconciler.go Reconcile: `Composed resource %q is not yet ready`, reason
 * ComposeResources).
 */
export function notReadyEvent(resourceName: string): ReconcileEvent {
  return {
    type: 'Normal',
    reason: 'ComposeResources',
    message: `Composed resource ${goQuote(resourceName)} is not yet ready`,
  };
}

/**
 * The events upstream records after a compose pass, per composed resource by name: `Composed resource %q is not yet
 * valid` when its apply was rejected as invalid, then `... is not yet ready` when it is not ready (reconciler.go
 * Reconcile records both on every reconcile while they hold; upstream's order follows a Go map, here it is by name).
 */
export function composedResourceEvents(unsynced: readonly string[], unready: readonly string[]): ReconcileEvent[] {
  const invalid = new Set(unsynced);
  const notReady = new Set(unready);
  const events: ReconcileEvent[] = [];
  for (const name of [...new Set([...unsynced, ...unready])].sort()) {
    if (invalid.has(name)) {
      events.push({
        type: 'Normal',
        reason: 'ComposeResources',
        message: `Composed resource ${goQuote(name)} is not yet valid`,
      });
    }
    if (notReady.has(name)) events.push(notReadyEvent(name));
  }
  return events;
}

/** What the function pipeline says about an XR reaches the XR, and the XR's claim where a function targets it. */
export interface ResultPublisher {
  /**
   * Sets the pipeline's conditions (never the system types). A legacy XR lists those targeted at its claim in
   * status.claimConditionTypes, which the claim controller copies.
   */
  setConditions(status: StatusDraft, conditions: readonly PipelineCondition[]): void;
  /** Records the pipeline's events on the XR, and those targeted at the claim on its claim too. */
  emitEvents(xr: Xr, events: readonly PipelineEvent[], signal: AbortSignal): Promise<void>;
  /**
   * A legacy XR publishes the connection details the pipeline desires for it, filtered by the XRD's
   * connectionSecretKeys, to its spec.writeConnectionSecretToRef; written only when they change. The publishing time
   * goes to the status draft; XrWriter applies it under compositor's own status manager, never Crossplane's.
   */
  publishConnectionDetails(
    xr: Xr,
    details: Readonly<Record<string, Uint8Array>> | undefined,
    context: { status: StatusDraft; signal: AbortSignal },
  ): Promise<void>;
}

export interface ApiResultPublisherOptions {
  client: KubeClient;
  discovery: Discovery;
  events: EventSink;
  logger: Logger;
  xrType: XrType;
  connectionSecretKeys: () => readonly string[] | undefined;
  now: () => Date;
  /** The cached copies of connection Secrets, which spare the read when nothing is to be written. */
  secrets?: Pick<ConnectionSecretReader, 'cached'>;
  /**
   * Informer caches a claim is read from, for claim-targeted events (the claim controller's informer of that kind,
   * shared); without one, or before it has synced, the claim is read from the API server.
   */
  claims?: RequiredCache;
}

/** The ResultPublisher of a running controller: events through the EventSink, Secrets through the API server. */
export class ApiResultPublisher implements ResultPublisher {
  constructor(private readonly options: ApiResultPublisherOptions) {}

  setConditions(status: StatusDraft, conditions: readonly PipelineCondition[]): void {
    const forClaim = new Set((status.get('claimConditionTypes') as string[] | undefined) ?? []);
    const before = forClaim.size;
    for (const condition of conditions) {
      if (SYSTEM_CONDITION_TYPES.has(condition.type)) continue;
      const { target, ...rest } = condition;
      status.setCondition(rest);
      if (target === 'CompositeAndClaim' && this.options.xrType.legacy) forClaim.add(condition.type);
    }
    // Upstream's SetClaimConditionTypes keeps the types it has and appends new ones in the pipeline's order.
    if (forClaim.size !== before) status.set('claimConditionTypes', [...forClaim]);
  }

  async emitEvents(xr: Xr, events: readonly PipelineEvent[], signal: AbortSignal): Promise<void> {
    for (const event of events) {
      this.options.events.event(xr, { type: event.type, reason: event.reason, message: event.message });
    }
    const forClaim = events.filter((event) => event.target === 'CompositeAndClaim');
    const ref = claimOf(xr);
    if (forClaim.length === 0 || !ref) return;
    // The claim itself, for its uid: that is how `kubectl describe` finds an object's events.
    const claim = await this.claimOf(ref, signal).catch((err: unknown) => {
      this.options.logger.warn(
        { xr: describe(xr), err: errorMessage(err) },
        'cannot read the claim to record its events',
      );
      return undefined;
    });
    if (!claim) return;
    // On the claim, the function's own message, without the step prefix.
    for (const event of forClaim) {
      this.options.events.event(claim, { type: event.type, reason: event.reason, message: event.detail });
    }
  }

  /** The claim from its kind's cache once synced, else from the API server; undefined when it does not exist. */
  private async claimOf(ref: ClaimRef, signal: AbortSignal): Promise<Xr | undefined> {
    const kind = { apiVersion: ref.apiVersion, kind: ref.kind };
    const cached = await this.options.claims
      ?.read(kind, (store) => ({ claim: store.get(`${ref.namespace}/${ref.name}`) }))
      .catch(() => undefined);
    if (cached) return cached.claim;
    const { client, discovery } = this.options;
    return getIfExists<Xr>(client, await discovery.path(ref.apiVersion, ref.kind, ref.name, ref.namespace), signal);
  }

  async publishConnectionDetails(
    xr: Xr,
    details: Readonly<Record<string, Uint8Array>> | undefined,
    { status, signal }: { status: StatusDraft; signal: AbortSignal },
  ): Promise<void> {
    const ref = xrSecretRef(xr);
    if (!ref) return;
    const data = publishedData(details, this.options.connectionSecretKeys());
    const cached = this.options.secrets?.cached(ref.namespace, ref.name);
    const wrote = await publishConnectionSecret(this.options.client, { ...ref, owner: xr, data }, signal, cached);
    if (!wrote) return;
    status.set('connectionDetails', { lastPublishedTime: this.options.now().toISOString() });
    this.options.events.event(xr, {
      type: 'Normal',
      reason: 'PublishConnectionSecret',
      message: 'Successfully published connection details',
    });
  }
}
