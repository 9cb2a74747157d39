import { expect } from 'chai';
import pino from 'pino';
import { NEVER } from 'rxjs';
import type { CustomResourceDefinition, OwnerReference } from '../../../src/apis/index.js';
import { ApiError, type EventSink, type KubeClient } from '../../../src/kube/index.js';
import {
  managedControllerName,
  NOP_TYPE,
  NOP_TYPES,
  nopCrdName,
  NopProvider,
  PROVIDER_NOP_TYPE,
} from '../../../src/managed/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { ObjectStore, type InformerLease, type InformerRegistry } from '../../../src/watch/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';

// NopProvider without a server: which kinds it starts a controller for. Fakes stand in for the API client (CRD
// reads only) and the informer registry (an empty, synced cache per kind).

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Answers GETs of CRDs from a map; anything else is not found. */
function fakeClient(crds: Record<string, CustomResourceDefinition>): KubeClient {
  const client = {
    request: (method: string, path: string): Promise<unknown> => {
      const crd =
        method === 'GET' && path.startsWith(`${CRDS_PATH}/`) ? crds[path.slice(CRDS_PATH.length + 1)] : undefined;
      return crd ? Promise.resolve(crd) : Promise.reject(new ApiError(404, 'NotFound', `${path} not found`));
    },
  };
  return client as unknown as KubeClient;
}

/** Records the kinds acquired and released; each lease is an empty cache that has synced. */
class FakeInformers {
  readonly acquired: string[] = [];
  readonly released: string[] = [];

  acquire(apiVersion: string, kind: string): Promise<InformerLease> {
    this.acquired.push(apiVersion);
    const informer = {
      store: new ObjectStore(),
      events$: NEVER,
      hasSynced: true,
      waitForSync: () => Promise.resolve(),
    };
    const [group = '', version = ''] = apiVersion.split('/');
    return Promise.resolve({
      informer,
      resource: { groupVersionPath: `/apis/${group}/${version}`, plural: `${kind.toLowerCase()}s`, namespaced: true },
      release: () => {
        this.released.push(apiVersion);
        return Promise.resolve();
      },
    } as unknown as InformerLease);
  }
}

function crd(name: string, ownerReferences?: OwnerReference[]): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name, ownerReferences },
    spec: {},
  };
}

function provider(crds: Record<string, CustomResourceDefinition>, informers: FakeInformers): NopProvider {
  const events: EventSink = { record: () => undefined } as unknown as EventSink;
  return new NopProvider({
    client: fakeClient(crds),
    informers: informers as unknown as InformerRegistry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: {
      pollIntervalMs: 60_000,
      minPollIntervalMs: 1_000,
      syncIntervalMs: 3_600_000,
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
      workers: 1,
    },
    installCrd: false,
  });
}

describe('managed/nop provider', () => {
  const both = Object.fromEntries(NOP_TYPES.map((type) => [nopCrdName(type), crd(nopCrdName(type))]));

  it('runs one managed controller per kind in NOP_TYPES, and stops them all', async () => {
    const informers = new FakeInformers();
    const nop = provider(both, informers);
    await nop.start();
    expect(nop.started().map((c) => c.name)).to.deep.equal(
      NOP_TYPES.map((type) => managedControllerName(type.plural, type.apiVersion)),
    );
    expect(informers.acquired).to.deep.equal([NOP_TYPE.apiVersion, PROVIDER_NOP_TYPE.apiVersion]);
    await nop.stop(AbortSignal.timeout(1_000));
    expect(informers.released.sort()).to.deep.equal([...informers.acquired].sort());
    expect(nop.started()).to.deep.equal([]);
  });

  it('leaves nop.crossplane.io to a real provider-nop whose package owns its CRD', async () => {
    const revision: OwnerReference = {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'ProviderRevision',
      name: 'provider-nop-1a2b3c',
      uid: 'u-1',
      controller: true,
    };
    const informers = new FakeInformers();
    const upstream = nopCrdName(PROVIDER_NOP_TYPE);
    const nop = provider({ ...both, [upstream]: crd(upstream, [revision]) }, informers);
    await nop.start();
    expect(nop.started().map((c) => c.name)).to.deep.equal([
      managedControllerName(NOP_TYPE.plural, NOP_TYPE.apiVersion),
    ]);
    expect(informers.acquired).to.deep.equal([NOP_TYPE.apiVersion]);
    await nop.stop(AbortSignal.timeout(1_000));
  });
});
