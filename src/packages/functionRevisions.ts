// A Function's FunctionRevisions in the API server, as Crossplane's package reconciler keeps them: one per package
// reference, numbered after every other, activated as `revisionActivationPolicy` says, carrying what they inherit from
// the Function's spec, and pruned past `revisionHistoryLimit`. Which revision runs and when one retires is the
// Function package controller's decision (controller.ts); this module only reads and writes them.
import { CONTENT_TYPE, getIfExists, isNotFound, serverSideApply, type KubeClient } from '../kube/index.js';
import type { StatusTarget } from './configuration/status.js';
import { FUNCTION, FUNCTION_REVISION, LABEL_PARENT_PACKAGE, revisionName, serverSecretName } from './names.js';
import type { FunctionPackage, FunctionRevision } from './types.js';

const REVISIONS = '/apis/pkg.crossplane.io/v1/functionrevisions';

/**
 * @example
 * const revisions = new FunctionRevisions(client);
 * const current = await revisions.ensure(fn, fn.spec.package, await revisions.list(fn.metadata.name, signal), signal);
 */
export class FunctionRevisions {
  constructor(private readonly client: KubeClient) {}

  /** The revisions of the Function named `name`, by their parent-package label. */
  async list(name: string, signal: AbortSignal): Promise<FunctionRevision[]> {
    const list = await this.client.request<{ items: FunctionRevision[] }>('GET', REVISIONS, {
      query: { labelSelector: `${LABEL_PARENT_PACKAGE}=${name}` },
      signal,
    });
    return list.items;
  }

  /** The revision named `name` as stored now; undefined when there is none. */
  async get(name: string, signal: AbortSignal): Promise<FunctionRevision | undefined> {
    return getIfExists<FunctionRevision>(this.client, `${REVISIONS}/${name}`, signal);
  }

  /** Creates or updates the revision of the Function's package reference, numbered after every other. */
  async ensure(
    fn: FunctionPackage,
    pkg: string,
    revisions: readonly FunctionRevision[],
    signal: AbortSignal,
  ): Promise<FunctionRevision> {
    const name = revisionName(fn.metadata.name, pkg);
    const existing = revisions.find((r) => r.metadata.name === name);
    const highest = Math.max(0, ...revisions.filter((r) => r !== existing).map((r) => r.spec.revision));
    const number = existing !== undefined && existing.spec.revision >= highest ? existing.spec.revision : highest + 1;
    const automatic = (fn.spec?.revisionActivationPolicy ?? 'Automatic') === 'Automatic';
    const desiredState = automatic ? 'Active' : (existing?.spec.desiredState ?? 'Inactive');
    const body = {
      ...FUNCTION_REVISION,
      metadata: {
        name,
        labels: { [LABEL_PARENT_PACKAGE]: fn.metadata.name },
        ownerReferences: [
          {
            ...FUNCTION,
            name: fn.metadata.name,
            uid: fn.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { desiredState, image: pkg, revision: number, ...inheritedSpec(fn) },
    };
    const options = { fieldManager: 'compositor/packages', signal };
    return serverSideApply<FunctionRevision>(this.client, `${REVISIONS}/${name}`, body, options);
  }

  /** Patches the revision's desiredState, and sets it on `revision` too. */
  async setDesiredState(revision: FunctionRevision, state: 'Active' | 'Inactive', signal: AbortSignal): Promise<void> {
    await this.client.request('PATCH', `${REVISIONS}/${revision.metadata.name}`, {
      body: { spec: { desiredState: state } },
      contentType: CONTENT_TYPE.mergePatch,
      signal,
    });
    revision.spec.desiredState = state;
  }

  /** Deletes the oldest inactive revisions beyond `revisionHistoryLimit` (default 1; 0 keeps all), as upstream. */
  async collectGarbage(fn: FunctionPackage, revisions: FunctionRevision[], signal: AbortSignal): Promise<void> {
    const limit = fn.spec?.revisionHistoryLimit ?? 1;
    if (limit === 0) return;
    const inactive = revisions
      .filter((r) => r.spec.desiredState !== 'Active')
      .sort((a, b) => a.spec.revision - b.spec.revision);
    const excess = revisions.length - (limit + 1);
    for (const revision of inactive.slice(0, Math.max(0, excess))) {
      await this.client
        .request('DELETE', `${REVISIONS}/${revision.metadata.name}`, { signal })
        .catch((err: unknown) => {
          if (!isNotFound(err))
            throw new Error(`cannot garbage collect old package revision "${revision.metadata.name}"`, { cause: err });
        });
    }
  }
}

/** A revision's status as stored, and where it is written. */
export function revisionStatusOf(revision: FunctionRevision): StatusTarget {
  return { path: `${REVISIONS}/${revision.metadata.name}`, stored: revision.status };
}

/** What a revision takes from its Function's spec, as upstream's package reconciler copies it. */
function inheritedSpec(fn: FunctionPackage): Record<string, unknown> {
  const spec = fn.spec ?? {};
  const copied: Record<string, unknown> = { tlsServerSecretName: serverSecretName(fn.metadata.name) };
  for (const key of ['packagePullPolicy', 'packagePullSecrets', 'runtimeConfigRef', 'commonLabels'] as const) {
    if (spec[key] !== undefined) copied[key] = spec[key];
  }
  return copied;
}
