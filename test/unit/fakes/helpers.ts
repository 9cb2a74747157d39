// Small helpers the tests over the fakes share.
import type { RecordingEventSink } from '../../../src/kube/index.js';
import type { RecordedRequest } from './apiServer.js';

/** What `promise` rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** Requests as "METHOD path [fieldManager]", the field manager when there is one. */
export function requestLines(requests: readonly RecordedRequest[]): string[] {
  return requests.map((r) => {
    const manager = r.query?.fieldManager;
    return `${r.method} ${r.path}${manager === undefined ? '' : ` [${String(manager)}]`}`;
  });
}

/** Recorded events as "Type Reason: message". */
export function eventLines(sink: RecordingEventSink): string[] {
  return sink.events.map(({ input }) => `${input.type} ${input.reason}: ${input.message}`);
}

/**
 * Lets queued work, promise callbacks and fake watch events run until `done` holds. No timer is waited for: work
 * that needs one (a requeue after a delay) never comes in time, and the wait fails naming `what`.
 */
export async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting until ${what}`);
}
