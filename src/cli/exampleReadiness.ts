// Watches the XRs and claims `compositor dev` applies until all are Ready, then reports it once in one line; after
// a deadline it reports instead which are not Ready and why. The examples are a handful of objects on a local
// control plane, so reading each one every half second is cheaper than an informer per kind.
import { errorMessage, monotonicClock, type Clock } from '../base/index.js';
import { Discovery, getIfExists, KindNotServedError, type KubeClient, type KubeObject } from '../kube/index.js';
import type { Runnable } from '../lifecycle/index.js';
import { readManifests } from './examples.js';
import { compositesOf, examplesSummary, stateOf, type Composite, type ExampleState } from './exampleStatus.js';

/** Reads one example as stored: undefined when it does not exist, a string when it cannot be read now. */
export type ReadExample = (object: KubeObject, signal: AbortSignal) => Promise<KubeObject | string | undefined>;

export interface ExampleReadinessOptions {
  dirs: readonly string[];
  /** Called at most once, with examplesSummary's text. Never called when the manifests hold no XR or claim. */
  report: (text: string) => void;
  /** Reads an example (readThrough). */
  read: ReadExample;
  /** Why an example that does not exist was not applied (ExampleApplier.problem), for the report. */
  applyProblem?: (object: KubeObject) => string | undefined;
  /** Default 2 minutes: the first reconciles of a fresh control plane wait for CRDs to be established. */
  timeoutMs?: number;
  intervalMs?: number;
  clock?: Clock;
}

/** The default ReadExample: GET through discovery; a kind not served yet is a reason, not an error. */
export function readThrough(client: KubeClient): ReadExample {
  const discovery = new Discovery(client);
  return async (object, signal) => {
    const { apiVersion, kind, metadata } = object;
    try {
      return await getIfExists<KubeObject>(
        client,
        await discovery.path(apiVersion, kind, metadata.name, metadata.namespace),
        signal,
      );
    } catch (err) {
      if (err instanceof KindNotServedError) return 'its kind is not served yet (the XRD is not established)';
      if (signal.aborted) throw err;
      return `cannot read it: ${errorMessage(err)}`;
    }
  };
}

/**
 * A Runnable: start() reads the manifests and returns; the watch runs in the background until it reports, or
 * stop() ends it.
 *
 * @example
 * new ExampleReadiness({ dirs, read: readThrough(client), report: (text) => process.stderr.write(text) })
 */
export class ExampleReadiness implements Runnable {
  readonly name = 'example-readiness';
  private done: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();

  constructor(private readonly options: ExampleReadinessOptions) {}

  async start(signal: AbortSignal): Promise<void> {
    const objects: KubeObject[] = [];
    for (const dir of this.options.dirs) objects.push(...(await readManifests(dir)));
    const composites = compositesOf(objects);
    if (composites.length === 0) return;
    this.done = this.watch(composites, AbortSignal.any([signal, this.stopping.signal]));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.done;
  }

  private async read(composite: Composite, signal: AbortSignal): Promise<KubeObject | string | undefined> {
    const stored = await this.options.read(composite.object, signal);
    if (stored !== undefined) return stored;
    const problem = this.options.applyProblem?.(composite.object);
    return problem === undefined ? undefined : `not created yet: ${problem}`;
  }

  private async watch(composites: readonly Composite[], signal: AbortSignal): Promise<void> {
    const { report, timeoutMs = 120_000, intervalMs = 500, clock = monotonicClock } = this.options;
    const startedAt = clock.now();
    try {
      for (;;) {
        const states: ExampleState[] = [];
        for (const composite of composites) states.push(stateOf(composite, await this.read(composite, signal)));
        const elapsedMs = clock.now() - startedAt;
        if (states.every((s) => s.ready) || elapsedMs >= timeoutMs) {
          report(examplesSummary(states, elapsedMs));
          return;
        }
        await clock.sleep(intervalMs, signal);
      }
    } catch (err) {
      // Stopping aborts a read or the sleep between reads: that ends the watch without a report. Anything else is
      // reported, not thrown: a status line is no reason to stop dev.
      if (!signal.aborted) report(`examples: cannot watch them: ${errorMessage(err)}\n`);
    }
  }
}
