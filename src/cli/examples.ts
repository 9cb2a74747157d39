import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  serverSideApply,
  Discovery,
  FIELD_MANAGERS,
  KindNotServedError,
  type KubeClient,
  type KubeObject,
} from '../kube/index.js';
import { errorMessage, monotonicClock, type Clock } from '../base/index.js';
import type { Runnable } from '../lifecycle/index.js';
import type { Logger } from '../manager/index.js';
import { describeObject } from './exampleStatus.js';

const FIELD_MANAGER = FIELD_MANAGERS.dev;

/** Reads every YAML document of a directory, in file name order, so numbered files apply in sequence. */
export async function readManifests(dir: string): Promise<KubeObject[]> {
  const files = (await readdir(dir)).filter((file) => /\.ya?ml$/.test(file)).sort();
  const objects: KubeObject[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      if (doc.errors.length > 0) throw new Error(`cannot parse "${join(dir, file)}": ${doc.errors[0]?.message ?? ''}`);
      const object = doc.toJS() as KubeObject | null;
      if (object) objects.push(object);
    }
  }
  return objects;
}

/**
 * Applies the example manifests for `compositor dev` in the background. An XR's kind is only served once the XRD
 * controller has established its CRD, so objects whose kind is not served yet are retried until they apply or the
 * manager stops; start() never waits for them.
 */
export class ExampleApplier implements Runnable {
  readonly name = 'examples';
  private done: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  /** Why each object not applied yet failed its last attempt, by describeObject. */
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly client: KubeClient,
    private readonly dirs: readonly string[],
    private readonly log: Logger,
    private readonly retry: { ms: number; clock: Clock } = { ms: 2000, clock: monotonicClock },
  ) {}

  async start(signal: AbortSignal): Promise<void> {
    const objects: KubeObject[] = [];
    for (const dir of this.dirs) objects.push(...(await readManifests(dir)));
    const stop = AbortSignal.any([signal, this.stopping.signal]);
    this.done = this.applyAll(objects, stop);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.done;
  }

  /** Why `object` is not applied yet (its last attempt's error), or undefined: applied, or not tried yet. */
  problem(object: KubeObject): string | undefined {
    return this.failures.get(describeObject(object));
  }

  private async applyAll(objects: readonly KubeObject[], signal: AbortSignal): Promise<void> {
    const discovery = new Discovery(this.client);
    let pending = [...objects];
    while (pending.length > 0 && !signal.aborted) {
      const stillPending: KubeObject[] = [];
      for (const object of pending) {
        const what = describeObject(object);
        try {
          await serverSideApply(this.client, discovery, object, { fieldManager: FIELD_MANAGER, signal });
          this.failures.delete(what);
          this.log.info({ object: what }, 'applied example');
        } catch (err) {
          if (isAborted(signal)) return;
          stillPending.push(object);
          const reason =
            err instanceof KindNotServedError ? 'its kind is not served yet; retrying until it is' : errorMessage(err);
          // Logged when the reason changes, not on every retry: a kind served at last can still be refused.
          if (this.failures.get(what) !== reason) this.log.warn({ object: what }, `example not applied: ${reason}`);
          this.failures.set(what, reason);
        }
      }
      pending = stillPending;
      // Stopping ends the pause early; the loop then ends on the aborted signal.
      if (pending.length > 0) await this.retry.clock.sleep(this.retry.ms, signal).catch(() => undefined);
    }
  }
}

// A function call, so TypeScript does not narrow `aborted` to false from the loop condition: it changes between awaits.
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
