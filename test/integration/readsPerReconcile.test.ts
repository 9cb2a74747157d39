import { expect } from 'chai';
import type { CustomResourceDefinition } from '../../src/apis/index.js';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import { CONTENT_TYPE, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { settled } from './crossplaneTakeover.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  functions,
  get,
  PROBE_STATUS,
  PT_FUNCTION,
  remove,
  startEngine,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// API reads per reconcile once the informers have synced, for XRs of a typical shape: claims of a v1 XRD whose
// Composition requires a ConfigMap (a gRPC function), composes a ConfigMap and a managed resource with a connection
// Secret, and publishes the XR's connection Secret, which the claim copies into its namespace. The test is the
// managed kind's provider: it publishes the connection Secrets and marks the resources Ready, so every read the
// engine makes is the composite or claim controller's. Once a first claim has warmed the caches, new claims read only
// the XR's connection Secret before it exists, and reconciles of settled XRs and claims read nothing.

const GROUP = 'reads.compositor.test';
const NAMESPACE = 'reads-test';
const SECRETS = 'reads-secrets';
const CLAIMS = ['alpha', 'beta', 'gamma'];
const SETTINGS = 'reads-settings';
/** The managed kind the Composition composes, served by a CRD of the test's; the test plays its provider. */
const MANAGED = { apiVersion: `managed.${GROUP}/v1`, kind: 'Bucket' };

function managedCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `buckets.managed.${GROUP}` },
    spec: {
      group: `managed.${GROUP}`,
      names: { kind: 'Bucket', plural: 'buckets', singular: 'bucket', listKind: 'BucketList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

function definition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `xstores.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'XStore', plural: 'xstores' },
      claimNames: { kind: 'Store', plural: 'stores' },
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'string' } } }, status: PROBE_STATUS },
            },
          },
        },
      ],
    },
  };
}

/**
 * A ConfigMap following spec.size and a managed resource whose connection Secret is named after the claim, each giving
 * the XR one connection detail.
 */
function resources(): unknown[] {
  return [
    {
      name: 'settings',
      base: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: NAMESPACE }, data: {} },
      patches: [{ type: 'FromCompositeFieldPath', fromFieldPath: 'spec.size', toFieldPath: 'data.size' }],
      connectionDetails: [{ name: 'size', type: 'FromFieldPath', fromFieldPath: 'data.size' }],
    },
    {
      name: 'store',
      base: {
        ...MANAGED,
        metadata: { namespace: NAMESPACE },
        spec: { writeConnectionSecretToRef: { name: 'unset' } },
      },
      patches: [
        {
          type: 'FromCompositeFieldPath',
          fromFieldPath: 'spec.claimRef.name',
          toFieldPath: 'spec.writeConnectionSecretToRef.name',
          transforms: [{ type: 'string', string: { type: 'Format', fmt: '%s-store' } }],
        },
      ],
      connectionDetails: [{ name: 'password', type: 'FromConnectionSecretKey', fromConnectionSecretKey: 'password' }],
    },
  ];
}

function composition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: 'xstores' },
    spec: {
      compositeTypeRef: { apiVersion: `${GROUP}/v1`, kind: 'XStore' },
      mode: 'Pipeline',
      writeConnectionSecretsToNamespace: SECRETS,
      pipeline: [
        {
          step: 'settings',
          functionRef: { name: 'reads-probe' },
          input: { apiVersion: 'probe.fn.compositor.test/v1', kind: 'Input', requireConfigMap: SETTINGS },
        },
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: resources() },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

/** The ConfigMap the Composition's first step requires. */
function settings(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: SETTINGS, namespace: 'default' },
    data: { tier: 'gold' },
  };
}

/** The claim's XR shows the required ConfigMap's tier. */
async function requiredSeen(client: KubeClient, name: string, tier: string): Promise<boolean> {
  return eventually(`claim ${name}'s XR to see tier ${tier}`, async () => {
    const stored = await get<XrObject & { spec?: { resourceRef?: { name: string } } }>(client, claim(name));
    const ref = stored?.spec?.resourceRef;
    const xr = ref
      ? await get<XrObject & { status?: { required?: { data?: { tier?: string } }[] } }>(client, {
          apiVersion: `${GROUP}/v1`,
          kind: 'XStore',
          metadata: { name: ref.name },
        })
      : undefined;
    const seen = xr?.status?.required?.[0]?.data?.tier;
    if (seen === tier) return true;
    throw new Error(`the XR sees tier ${String(seen)}`);
  });
}

function claim(name: string): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'Store',
    metadata: { name, namespace: NAMESPACE },
    spec: { size: 'small', writeConnectionSecretToRef: { name: `${name}-conn` } },
  };
}

/** A managed resource's connection Secret as a provider publishes it, with its one key. */
function storeSecret(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-store`, namespace: NAMESPACE },
    type: 'connection.crossplane.io/v1alpha1',
    data: { password: Buffer.from(`${name}-password`).toString('base64') },
  };
}

/**
 * The provider's part: once the claim's XR has composed its managed resource, marks it Ready (the Composition's
 * auto-ready step waits for that).
 */
async function provide(client: KubeClient, name: string): Promise<void> {
  await eventually(
    `claim ${name}'s managed resource marked Ready`,
    async () => {
      const list = await client.request<{
        items: (KubeObject & { spec?: { writeConnectionSecretToRef?: { name?: string } } })[];
      }>('GET', `/apis/${MANAGED.apiVersion}/namespaces/${NAMESPACE}/buckets`);
      const mr = list.items.find((item) => item.spec?.writeConnectionSecretToRef?.name === `${name}-store`);
      if (!mr) throw new Error('not composed yet');
      const status = {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: new Date().toISOString() },
        ],
      };
      await client.request(
        'PATCH',
        `/apis/${MANAGED.apiVersion}/namespaces/${NAMESPACE}/buckets/${mr.metadata.name}/status`,
        {
          body: { status },
          contentType: CONTENT_TYPE.mergePatch,
        },
      );
      return true;
    },
    { timeoutMs: 60_000 },
  );
}

/** The claim's connection Secret holds both keys, and the claim is Ready. */
async function published(client: KubeClient, name: string): Promise<boolean> {
  return eventually(
    `claim ${name} Ready with its connection Secret`,
    async () => {
      const stored = await get<XrObject>(client, claim(name));
      const secret = await get<KubeObject & { data?: Record<string, string> }>(client, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${name}-conn`, namespace: NAMESPACE },
      });
      const keys = Object.keys(secret?.data ?? {}).sort();
      const ready = condition(stored, 'Ready')?.status;
      if (ready === 'True' && keys.join() === 'password,size') return true;
      throw new Error(`claim Ready ${String(ready)}, Secret keys ${JSON.stringify(keys)}`);
    },
    { timeoutMs: 60_000 },
  );
}

/** The reads of the XRs' and claims' reconciles among the engine's reads: all but the informers' own paged lists. */
function reconcileReads(lines: readonly string[]): string[] {
  return lines.filter((line) => !/\?(.*&)?limit=/.test(line));
}

describe('API reads per reconcile (integration)', function () {
  this.timeout(180_000);
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    await ensureNamespace(client, SECRETS);
    fn = await startFunction();
    await ensureCrds(client, [managedCrd()], { timeoutMs: 30_000 });
    running = await startEngine({ functionInsecure: true });
    for (const f of functions()) await apply(client, f);
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: 'reads-probe', annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
      spec: { package: 'example.org/probe:v0.1.0' },
    });
    await apply(client, settings());
    await apply(client, definition());
    await apply(client, composition());
    await eventually('XRD Established and Offered', async () => {
      const stored = await get<XrObject>(client, definition());
      const ok = ['Established', 'Offered'].every((type) => condition(stored, type)?.status === 'True');
      return ok ? true : undefined;
    });
  });

  after(async () => {
    try {
      for (const name of ['warm', ...CLAIMS]) await remove(client, claim(name));
      for (const name of ['warm', ...CLAIMS]) await remove(client, storeSecret(name));
      await remove(client, definition());
      await eventually(
        'the XRD and its XRs gone',
        async () => {
          const xrd = await get(client, definition());
          if (!xrd) return true;
          throw new Error('XRD still there');
        },
        { timeoutMs: 90_000 },
      );
    } finally {
      await running.stop();
      await fn.stop();
      await remove(client, managedCrd());
    }
  });

  it('reads only Secrets not written yet while new claims converge, and nothing in reconciles of settled ones', async () => {
    // The first claim starts the informers of every kind involved and waits for their first lists.
    for (const name of ['warm', ...CLAIMS]) await apply(client, storeSecret(name));
    await apply(client, claim('warm'));
    await provide(client, 'warm');
    await published(client, 'warm');
    await settled(running);

    // New claims: each reads the XR's connection Secret before the XR has published it (a miss in the cache may be a
    // Secret of another type, which the cache does not hold, so it is asked for), nothing else.
    let from = running.readLog().length;
    let reconcilesBefore = await reconcileCount(running);
    for (const name of CLAIMS) await apply(client, claim(name));
    for (const name of CLAIMS) await provide(client, name);
    for (const name of CLAIMS) await published(client, name);
    await settled(running);
    let reconciles = (await reconcileCount(running)) - reconcilesBefore;
    let reads = reconcileReads(running.readLog().slice(from));
    let seen = `${reads.length} reads in ${reconciles} reconciles: ${reads.join(', ')}`;
    expect(reconciles, seen).to.be.greaterThan(CLAIMS.length * 2);
    for (const line of reads) expect(line, seen).to.match(new RegExp(`^GET /api/v1/namespaces/${SECRETS}/secrets/`));
    expect(reads.length, seen).to.be.at.most(CLAIMS.length * 2);

    // Settled XRs and claims reconciled again: the required ConfigMap changes, every XR's pipeline sees it, and each
    // XR's status write brings its claim. Not one read.
    from = running.readLog().length;
    reconcilesBefore = await reconcileCount(running);
    await apply(client, { ...settings(), data: { tier: 'platinum' } });
    for (const name of ['warm', ...CLAIMS]) await requiredSeen(client, name, 'platinum');
    await settled(running);
    reconciles = (await reconcileCount(running)) - reconcilesBefore;
    reads = reconcileReads(running.readLog().slice(from));
    seen = `${reads.length} reads in ${reconciles} reconciles: ${reads.join(', ')}`;
    expect(reconciles, seen).to.be.at.least(CLAIMS.length + 1);
    expect(reads, seen).to.deep.equal([]);

    // Connection Secrets come from the one informer of that type's Secrets, listed with its selector. (Another
    // informer of every Secret runs only for XRs composing Secrets, which other test files may have left.)
    const secretLists = running.readLog().filter((line) => line.startsWith('GET /api/v1/secrets?'));
    const connectionLists = secretLists.filter((line) =>
      line.includes('fieldSelector=type=connection.crossplane.io/v1alpha1'),
    );
    expect(connectionLists, secretLists.join(', ')).to.have.length.within(1, 2);
  });
});

/** Reconciles of the XR and claim controllers so far. */
async function reconcileCount(running: RunningEngine): Promise<number> {
  const xrs = await running.reconciles(`composite/xstores.${GROUP}`);
  const claims = await running.reconciles(`claim/stores.${GROUP}`);
  return xrs + claims;
}
