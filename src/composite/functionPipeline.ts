import { assertNesting } from '../base/index.js';
import type { ConnectionSecretReader, Xr } from '../controller/index.js';
import {
  RememberedRequirements,
  RequirementsRunner,
  runPipeline,
  type FunctionRunner,
  type JsonObject,
  type PipelineOutput,
  type Resource,
  type Resources,
  type State,
} from '../functions/index.js';
import { getIfExists, readSecretData, type Discovery, type KubeClient } from '../kube/index.js';
import type { ComposedObject } from './composed.js';
import { composedConnectionDetails } from './connection.js';
import type { RequiredCache } from './requiredKinds.js';
import { apiResourceFetcher, type RequiredWatch } from './requiredResources.js';
import type { RevisionObject } from './selection.js';

/** Runs a revision's function pipeline for an XR (the pipeline step of the reconcile order). */
export interface CompositionPipeline {
  /**
   * The pipeline's output for the XR and its observed composed resources. Every required resource a function read
   * is pushed to `required`, so the controller watches it; with `sent`, what each requirement name was last sent
   * (every step's, merged) is put there, for ordering's edges to required resources.
   */
  run(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    context: RunContext,
  ): Promise<PipelineOutput>;
}

export interface RunContext {
  signal: AbortSignal;
  required: RequiredWatch[];
  sent?: Map<string, Resources>;
}

export interface FunctionPipelineOptions {
  client: KubeClient;
  discovery: Discovery;
  /** The function runner stack without the requirements loop, which is per XR (its namespace). */
  runner: FunctionRunner;
  /** --enable-composed-resource-ordering: the steps are sent, and may return, dependencies. */
  ordering?: boolean;
  /** Steps (XR and step) whose last requirements seed the next run's first call; DEFAULT_REMEMBERED_REQUIREMENTS. */
  rememberedRequirements?: number;
  /** The informer caches required resources are served from; without it every lookup reads the API server. */
  required?: RequiredCache;
  /** Where composed resources' connection Secrets are read; without it, from the API server. */
  secrets?: Pick<ConnectionSecretReader, 'data'>;
}

/**
 * Notes what each call was sent under each requirement name, the last call's winning per step and every step's
 * merged: an edge to a required resource may name a requirement any step declared (upstream unions them, so an edge
 * waits for everything either step matched).
 */
function recording(inner: FunctionRunner, sent: Map<string, Resources>): FunctionRunner {
  const perStep = new Map<string, Record<string, Resources>>();
  return {
    run: async (call) => {
      perStep.set(call.step ?? call.functionName, call.request.requiredResources ?? {});
      sent.clear();
      for (const resources of perStep.values()) {
        for (const [name, r] of Object.entries(resources)) {
          sent.set(name, { items: [...(sent.get(name)?.items ?? []), ...(r.items ?? [])] });
        }
      }
      return inner.run(call);
    },
  };
}

/**
 * The CompositionPipeline of a running controller: observed state with each composed resource's connection details,
 * the requirements loop fetching from the informer caches of required kinds, Secrets read for functions that ask for credentials.
 */
export class FunctionPipeline implements CompositionPipeline {
  /** What each step of each XR required last run, so a function whose requirements hold is called once. */
  private readonly remembered: RememberedRequirements;

  constructor(private readonly options: FunctionPipelineOptions) {
    this.remembered = new RememberedRequirements(options.rememberedRequirements);
  }

  async run(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    { signal, required, sent }: RunContext,
  ): Promise<PipelineOutput> {
    const { client, discovery } = this.options;
    const secrets = this.options.secrets ?? liveSecrets(client);
    // The API server accepts objects far deeper than the engine walks recursively (encoding, digests, comparison).
    for (const [name, object] of observed) assertNesting(object, `composed resource "${name}"`);
    assertNesting(revision.spec?.pipeline, `the pipeline of CompositionRevision "${revision.metadata.name}"`);
    const resources = await Promise.all(
      [...observed].map(async ([name, object]): Promise<[string, Resource]> => {
        const connectionDetails = await composedConnectionDetails(secrets, object, signal);
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
      cache: this.options.required,
    });
    const inner = sent === undefined ? this.options.runner : recording(this.options.runner, sent);
    return runPipeline(
      { steps: revision.spec?.pipeline ?? [], observed: state, ordering: this.options.ordering === true },
      {
        runner: new RequirementsRunner(inner, fetcher, this.remembered.forXr(xr.metadata.uid, xr.metadata.namespace)),
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

/** Connection Secrets read from the API server every time, for a pipeline given no cache. */
function liveSecrets(client: KubeClient): Pick<ConnectionSecretReader, 'data'> {
  return { data: (namespace, name, signal) => readSecretData(client, namespace, name, signal) };
}
