import { assertNesting } from '../base/index.js';
import type { Xr } from '../controller/index.js';
import {
  RequirementsRunner,
  runPipeline,
  type FunctionRunner,
  type JsonObject,
  type PipelineOutput,
  type Resource,
  type State,
} from '../functions/index.js';
import { getIfExists, type Discovery, type KubeClient } from '../kube/index.js';
import type { ComposedObject } from './composed.js';
import { composedConnectionDetails } from './connection.js';
import { apiResourceFetcher, type RequiredWatch } from './requiredResources.js';
import type { RevisionObject } from './selection.js';

/** Runs a revision's function pipeline for an XR (the pipeline step of the reconcile order). */
export interface CompositionPipeline {
  /**
   * The pipeline's output for the XR and its observed composed resources. Every required resource a function read
   * is pushed to `required`, so the controller watches it.
   */
  run(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    context: { signal: AbortSignal; required: RequiredWatch[] },
  ): Promise<PipelineOutput>;
}

export interface FunctionPipelineOptions {
  client: KubeClient;
  discovery: Discovery;
  /** The function runner stack without the requirements loop, which is per XR (its namespace). */
  runner: FunctionRunner;
}

/**
 * The CompositionPipeline of a running controller: observed state with each composed resource's connection details,
 * the requirements loop fetching from the API server, Secrets read for functions that ask for credentials.
 */
export class FunctionPipeline implements CompositionPipeline {
  constructor(private readonly options: FunctionPipelineOptions) {}

  async run(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    { signal, required }: { signal: AbortSignal; required: RequiredWatch[] },
  ): Promise<PipelineOutput> {
    const { client, discovery } = this.options;
    // The API server accepts objects far deeper than the engine walks recursively (encoding, digests, comparison).
    for (const [name, object] of observed) assertNesting(object, `composed resource "${name}"`);
    assertNesting(revision.spec?.pipeline, `the pipeline of CompositionRevision "${revision.metadata.name}"`);
    const resources = await Promise.all(
      [...observed].map(async ([name, object]): Promise<[string, Resource]> => {
        const connectionDetails = await composedConnectionDetails(client, object, signal);
        return [
          name,
          { resource: object as unknown as JsonObject, ...(connectionDetails ? { connectionDetails } : {}) },
        ];
      }),
    );
    const state: State = {
      composite: { resource: xr as unknown as JsonObject },
      resources: Object.fromEntries(resources),
    };
    const fetcher = apiResourceFetcher(client, discovery, {
      namespace: xr.metadata.namespace,
      signal,
      record: (watch) => required.push(watch),
    });
    return runPipeline(
      { steps: revision.spec?.pipeline ?? [], observed: state },
      {
        runner: new RequirementsRunner(this.options.runner, fetcher),
        getSecret: (namespace, name) => this.getSecret(namespace, name, signal),
        signal,
      },
    );
  }

  private async getSecret(
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<Record<string, string> | undefined> {
    const path = `/api/v1/namespaces/${namespace}/secrets/${name}`;
    const secret = await getIfExists<{ data?: Record<string, string> }>(this.options.client, path, signal);
    return secret ? (secret.data ?? {}) : undefined;
  }
}
