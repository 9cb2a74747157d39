import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import { reportFailure, type StatusDraft } from '../controller/index.js';
import { isConflict, type EventInput, type EventSink } from '../kube/index.js';
import type { ConnectionSecretPublisher } from './connectionSecret.js';
import type { ConnectionDetails, ManagedResource } from './types.js';
import type { ManagedWriter } from './writer.js';

/** A failed step, as reported on the MR. */
export interface Failure {
  /** The Warning event's reason, upstream's: CannotCreateExternalResource, CannotObserveExternalResource, ... */
  reason: string;
  /** The first words of the Synced message, as upstream words them: "create failed", "observe failed", ... */
  what: string;
  err: unknown;
  /** Ready False with this reason as well. */
  ready?: 'Creating' | 'Deleting';
}

export interface PassDeps {
  writer: ManagedWriter;
  secrets: ConnectionSecretPublisher;
  events: EventSink;
  logger: Logger;
  now: () => Date;
}

export interface PassState<T extends ManagedResource> {
  key: string;
  /** A copy of the cached MR; writes update its metadata. */
  mr: T;
  /** The status this reconcile builds; written only when it differs from what is stored. */
  status: StatusDraft;
  pollMs: number;
  signal: AbortSignal;
  /** The MR had no crossplane.io/external-name; metadata.name stands in and is persisted with the next write. */
  defaultedExternalName: boolean;
}

/**
 * One reconcile of one MR: what it works on, and the few ways every step reports (events, the status, a failure
 * that backs the MR off), so each step reads as what it does.
 */
export class ManagedPass<T extends ManagedResource> implements PassState<T> {
  readonly key: string;
  readonly mr: T;
  readonly status: StatusDraft;
  readonly pollMs: number;
  readonly signal: AbortSignal;
  readonly defaultedExternalName: boolean;

  constructor(
    state: PassState<T>,
    private readonly deps: PassDeps,
  ) {
    this.key = state.key;
    this.mr = state.mr;
    this.status = state.status;
    this.pollMs = state.pollMs;
    this.signal = state.signal;
    this.defaultedExternalName = state.defaultedExternalName;
  }

  get writer(): ManagedWriter {
    return this.deps.writer;
  }

  nowMs(): number {
    return this.deps.now().getTime();
  }

  /** Now, as the create protocol's annotations record it: RFC 3339 with milliseconds. */
  stamp(): string {
    return this.deps.now().toISOString();
  }

  event(input: EventInput): void {
    this.deps.events.event(this.mr, input);
  }

  async writeStatus(): Promise<void> {
    if (this.status.unchanged()) return;
    const written = await this.deps.writer.writeStatus(this.mr, this.status.toStatus(), this.signal);
    // Later writes with a resourceVersion precondition (a finalizer) must build on this one.
    this.mr.metadata.resourceVersion = written.metadata.resourceVersion;
  }

  async publish(details: ConnectionDetails): Promise<void> {
    try {
      await this.deps.secrets.publish(this.mr, details, this.signal);
    } catch (err) {
      await this.fail({ reason: 'CannotPublishConnectionDetails', what: 'cannot publish connection details', err });
    }
  }

  /** Reports a failed step (event, Synced False, status) and throws, so the queue backs the MR off. */
  async fail(failure: Failure): Promise<never> {
    const { err } = failure;
    // A stale cache: retried at once and quietly, without an event.
    if (isConflict(err)) throw err;
    const message = `${failure.what}: ${errorMessage(err)}`;
    if (failure.ready) this.status.setCondition({ type: 'Ready', status: 'False', reason: failure.ready });
    await reportFailure(
      {
        status: this.status,
        event: (input) => {
          this.event(input);
        },
        writeStatus: () => this.writeStatus(),
        onWriteError: (writeErr) => {
          this.deps.logger.warn({ mr: this.key, err: errorMessage(writeErr) }, 'cannot write managed resource status');
        },
      },
      { reason: failure.reason, message },
    );
    throw new Error(message, { cause: err });
  }

  warn(message: string, err: unknown): void {
    this.deps.logger.warn({ mr: this.key, err: errorMessage(err) }, message);
  }
}
