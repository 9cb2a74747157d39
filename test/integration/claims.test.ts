import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { startFunction } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  eventsFor,
  functions,
  get,
  mergePatch,
  PT_FUNCTION,
  remove,
  startEngine,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// Claims of a v1 XRD against the real API server: a claim creates its legacy XR, shows its status and connection
// Secret, survives its XR being deleted out of band, reports a spec it cannot honour, and a Foreground claim
// deletion waits for its XR and the XR's composed resources.

const GROUP = 'claims.compositor.test';
const NAMESPACE = 'claims-test';
const SECRETS = 'claims-secrets';
const XR_KIND = 'XDatabase';
const CLAIM = { apiVersion: `${GROUP}/v1`, kind: 'Database' };
/** function-dummy as the conformance corpus runs it: a real gRPC function process written with the TS SDK. */
const SCENARIO_FUNCTION = fileURLToPath(new URL('../conformance/functions/scenario-function.ts', import.meta.url));

type ClaimObject = XrObject & {
  metadata: XrObject['metadata'] & { deletionTimestamp?: string; finalizers?: string[] };
  spec?: Record<string, unknown> & { resourceRef?: { apiVersion: string; kind: string; name: string } };
  status?: XrObject['status'] & { size?: string; connectionDetails?: { lastPublishedTime?: string } };
};

function definition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `xdatabases.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: XR_KIND, plural: 'xdatabases' },
      claimNames: { kind: 'Database', plural: 'databases' },
      connectionSecretKeys: ['size'],
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'string' } } },
                status: { type: 'object', properties: { size: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** One ConfigMap following spec.size; its data becomes connection details (only `size` is published). */
function composition(name = 'databases', labels: Record<string, string> = {}, extra = ''): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name, labels },
    spec: {
      compositeTypeRef: { apiVersion: `${GROUP}/v1`, kind: XR_KIND },
      mode: 'Pipeline',
      writeConnectionSecretsToNamespace: SECRETS,
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            resources: [
              {
                name: 'settings',
                base: {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { namespace: NAMESPACE },
                  data: extra ? { extra } : {},
                },
                patches: [
                  { type: 'FromCompositeFieldPath', fromFieldPath: 'spec.size', toFieldPath: 'data.size' },
                  { type: 'ToCompositeFieldPath', fromFieldPath: 'data.size', toFieldPath: 'status.size' },
                ],
                connectionDetails: [
                  { name: 'size', type: 'FromFieldPath', fromFieldPath: 'data.size' },
                  { name: 'internal', type: 'FromValue', value: 'not published' },
                ],
              },
            ],
          },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

function claim(name: string, extra: Record<string, unknown> = {}): ClaimObject {
  return {
    ...CLAIM,
    metadata: { name, namespace: NAMESPACE },
    spec: { size: 'small', writeConnectionSecretToRef: { name: `${name}-conn` }, ...extra },
  };
}

async function readyClaim(client: KubeClient, name: string): Promise<ClaimObject> {
  return eventually(`claim ${name} Ready`, async () => {
    const stored = await get<ClaimObject>(client, claim(name));
    return condition(stored, 'Ready')?.status === 'True' && stored?.spec?.resourceRef ? stored : undefined;
  });
}

function xrOf(stored: ClaimObject): KubeObject {
  const ref = stored.spec?.resourceRef;
  if (!ref) throw new Error(`claim ${stored.metadata.name} is not bound`);
  return { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name } };
}

type Composed = KubeObject & { metadata: { uid: string; finalizers?: string[] }; data?: Record<string, string> };

async function composedOf(client: KubeClient, xr: KubeObject): Promise<Composed | undefined> {
  const stored = await get<XrObject & { spec?: { resourceRefs?: { name: string }[] } }>(client, xr);
  const ref = stored?.spec?.resourceRefs?.[0];
  if (!ref) return undefined;
  return get<Composed>(client, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: ref.name, namespace: NAMESPACE },
  });
}

function decoded(secret: KubeObject | undefined): Record<string, string> | undefined {
  const data = (secret as { data?: Record<string, string> } | undefined)?.data;
  if (!data) return undefined;
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
}

describe('claims (integration)', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    await ensureNamespace(client, SECRETS);
    running = await startEngine({ functionInsecure: true });
    for (const fn of functions()) await apply(client, fn);
    await apply(client, definition());
    await apply(client, composition());
    await eventually('XRD Established and Offered', async () => {
      const stored = await get<XrObject>(client, definition());
      const ok = ['Established', 'Offered'].every((type) => condition(stored, type)?.status === 'True');
      return ok ? true : undefined;
    });
  });

  // Leaves the shared control plane clean (a claim left failing would keep retrying under later tests' engines), and
  // checks that deleting the XRD takes its claims, their XRs and both CRDs with it.
  after(async () => {
    try {
      await remove(client, definition());
      await eventually(
        'the XRD, its claims and their XRs gone',
        async () => {
          const left = await client
            .request<{ items: unknown[] }>('GET', `/apis/${GROUP}/v1/xdatabases`)
            .then((list) => list.items.length)
            .catch(() => 0);
          const xrd = await get(client, definition());
          if (!xrd && left === 0) return true;
          throw new Error(`XRD ${xrd ? 'still there' : 'gone'}, ${left} XRs left`);
        },
        { timeoutMs: 90_000 },
      );
    } finally {
      await running.stop();
    }
  });

  it('creates its XR, shows its status and publishes its connection details into its namespace', async () => {
    await apply(client, claim('orders'));
    const stored = await readyClaim(client, 'orders');
    expect(condition(stored, 'Synced')).to.include({ status: 'True', reason: 'ReconcileSuccess' });
    expect(stored.status?.size).to.equal('small');
    expect(stored.metadata.finalizers).to.include('finalizer.apiextensions.crossplane.io');
    const xr = await get<XrObject & { spec: Record<string, unknown> }>(client, xrOf(stored));
    expect(xr?.metadata.name).to.match(/^orders-[0-9a-f]{5}$/);
    expect(xr?.metadata.labels).to.include({
      'crossplane.io/claim-name': 'orders',
      'crossplane.io/claim-namespace': NAMESPACE,
    });
    expect(xr?.spec.claimRef).to.deep.equal({ ...CLAIM, name: 'orders', namespace: NAMESPACE });
    expect(xr?.spec.writeConnectionSecretToRef).to.deep.equal({ name: xr?.metadata.uid, namespace: SECRETS });
    // The XR's Secret keeps only the XRD's connectionSecretKeys; the claim's is a copy in the claim's namespace.
    const xrSecret = await eventually('the XR connection Secret', async () =>
      decoded(
        await get(client, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: xr?.metadata.uid ?? '', namespace: SECRETS },
        }),
      ),
    );
    expect(xrSecret).to.deep.equal({ size: 'small' });
    const claimSecret = await eventually('the claim connection Secret', async () =>
      decoded(
        await get(client, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'orders-conn', namespace: NAMESPACE },
        }),
      ),
    );
    expect(claimSecret).to.deep.equal({ size: 'small' });

    // A spec change reaches the XR, its composed resource and the claim's status.
    await mergePatch(client, claim('orders'), { spec: { size: 'large' } });
    await eventually('the change back on the claim', async () => {
      const now = await get<ClaimObject>(client, claim('orders'));
      return now?.status?.size === 'large' ? true : undefined;
    });
  });

  it('recreates its XR when the XR is deleted out of band', async () => {
    await apply(client, claim('recreated'));
    const stored = await readyClaim(client, 'recreated');
    const before = await get<XrObject>(client, xrOf(stored));
    await remove(client, xrOf(stored));
    const after = await eventually('a new XR of the same name', async () => {
      const now = await get<XrObject>(client, xrOf(stored));
      return now && now.metadata.uid !== before?.metadata.uid && condition(now, 'Ready')?.status === 'True'
        ? now
        : undefined;
    });
    expect(after.metadata.name).to.equal(before?.metadata.name);
    const cm = await eventually('its composed ConfigMap', () => composedOf(client, xrOf(stored)));
    expect(cm.data?.size).to.equal('small');
  });

  it('reports a spec it cannot honour on the claim, and deletes nothing composed', async () => {
    await apply(client, claim('malformed'));
    const stored = await readyClaim(client, 'malformed');
    const cm = await eventually('its composed ConfigMap', () => composedOf(client, xrOf(stored)));
    await mergePatch(client, claim('malformed'), {
      spec: { resourceRef: { apiVersion: 'other.example.org/v1', kind: 'Other', name: 'x' } },
    });
    const failed = await eventually('Synced False on the claim', async () => {
      const now = await get<ClaimObject>(client, claim('malformed'));
      return condition(now, 'Synced')?.status === 'False' ? now : undefined;
    });
    expect(condition(failed, 'Synced')?.message).to.include('cannot bind to Other "x"');
    const events = await eventually('a Warning event on the claim', async () => {
      const found = await eventsFor(client, NAMESPACE, failed.metadata.uid ?? '', 'BindCompositeResource');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]?.type).to.equal('Warning');
    const xr = await get<XrObject>(client, xrOf(stored));
    expect(xr?.metadata.uid, 'the XR survived').to.be.a('string');
    const still = await composedOf(client, xrOf(stored));
    expect(still?.metadata.uid, 'the composed ConfigMap survived').to.equal(cm.metadata.uid);
  });

  it('deletes with Foreground only once its XR and composed resources are gone', async () => {
    await apply(client, claim('foreground', { compositeDeletePolicy: 'Foreground' }));
    const stored = await readyClaim(client, 'foreground');
    const cm = await eventually('its composed ConfigMap', () => composedOf(client, xrOf(stored)));
    // Hold the composed ConfigMap with a finalizer of the test's own, so its deletion can be watched.
    await mergePatch(client, cm, { metadata: { finalizers: ['compositor.test/hold'] } });
    await remove(client, claim('foreground'));
    await eventually('the XR deleting', async () => {
      const xr = await get<XrObject & { metadata: { deletionTimestamp?: string } }>(client, xrOf(stored));
      return xr?.metadata.deletionTimestamp ? true : undefined;
    });
    // By the time the composed ConfigMap is being deleted, a Background claim would long have let go.
    await eventually('the composed ConfigMap deleting', async () => {
      const now = await get<Composed & { metadata: { deletionTimestamp?: string } }>(client, cm);
      return now?.metadata.deletionTimestamp ? true : undefined;
    });
    const waiting = await get<ClaimObject>(client, claim('foreground'));
    expect(waiting?.metadata.deletionTimestamp, 'the claim waits for its XR').to.be.a('string');
    expect(await get(client, cm), 'the composed ConfigMap is still held').to.not.equal(undefined);
    await mergePatch(client, cm, { metadata: { finalizers: null } });
    // The garbage collector finishes the XR's foreground deletion; it may take a few of its own retries.
    await eventually(
      'the claim, its XR and the ConfigMap gone',
      async () => {
        const left = [await get(client, claim('foreground')), await get(client, xrOf(stored)), await get(client, cm)];
        if (left.every((object) => object === undefined)) return true;
        throw new Error(`still there: ${left.map((o) => (o ? `${o.kind} ${o.metadata.name}` : '-')).join(', ')}`);
      },
      { timeoutMs: 60_000 },
    );
  });

  it('passes its Composition selector to the XR, keeps the choice when the selector changes, follows new revisions', async () => {
    await apply(client, composition('databases-a', { tier: 'a' }));
    await apply(client, composition('databases-b', { tier: 'b' }));
    await apply(client, claim('selected', { compositionSelector: { matchLabels: { tier: 'b' } } }));
    const stored = await readyClaim(client, 'selected');
    type Selected = XrObject & {
      spec: {
        compositionRef?: { name: string };
        compositionSelector?: { matchLabels: Record<string, string> };
        compositionRevisionRef?: { name: string };
      };
    };
    const xr = await get<Selected>(client, xrOf(stored));
    expect(xr?.spec.compositionRef?.name).to.equal('databases-b');
    expect((stored.spec?.compositionRef as { name?: string } | undefined)?.name).to.equal('databases-b');

    await mergePatch(client, claim('selected'), { spec: { compositionSelector: { matchLabels: { tier: 'a' } } } });
    const moved = await eventually('the new selector on the XR', async () => {
      const now = await get<Selected>(client, xrOf(stored));
      return now?.spec.compositionSelector?.matchLabels.tier === 'a' ? now : undefined;
    });
    expect(moved.spec.compositionRef?.name, 'the XR keeps its Composition').to.equal('databases-b');

    const before = moved.spec.compositionRevisionRef?.name;
    await apply(client, composition('databases-b', { tier: 'b' }, 'v2'));
    await eventually(
      'a new revision selected',
      async () => {
        const now = await get<Selected>(client, xrOf(stored));
        const name = now?.spec.compositionRevisionRef?.name;
        return name && name !== before ? now : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const cm = await eventually('the new revision applied', async () => {
      const now = await composedOf(client, xrOf(stored));
      return now?.data?.extra === 'v2' ? now : undefined;
    });
    expect(cm.data?.size).to.equal('small');
  });

  it('shows the pipeline results and conditions targeted at the claim on the claim', async () => {
    const fn = await startFunction(SCENARIO_FUNCTION);
    try {
      await apply(client, {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Function',
        metadata: { name: 'function-dummy-claims', annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
        spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-dummy:v0.4.1' },
      });
      await apply(client, targetedComposition());
      await apply(client, claim('targeted', { compositionRef: { name: 'targeted' } }));
      const stored = await eventually('the targeted condition on the claim', async () => {
        const now = await get<ClaimObject>(client, claim('targeted'));
        return condition(now, 'DatabaseReady')?.status === 'True' ? now : undefined;
      });
      expect(condition(stored, 'DatabaseReady')).to.include({ reason: 'Provisioned' });
      expect(condition(stored, 'XrOnly'), 'a condition for the XR only stays there').to.equal(undefined);
      const xr = await get<XrObject & { status?: { claimConditionTypes?: string[] } }>(client, xrOf(stored));
      expect(xr?.status?.claimConditionTypes).to.deep.equal(['DatabaseReady']);
      expect(condition(xr, 'XrOnly')?.status).to.equal('True');
      const events = await eventually('the targeted event on the claim', async () => {
        const found = await eventsFor(client, NAMESPACE, stored.metadata.uid ?? '', 'DatabaseProvisioned');
        return found.length > 0 ? found : undefined;
      });
      expect(events[0]?.note, 'the claim gets the plain message').to.equal('your database is ready');
    } finally {
      await fn.stop();
    }
  });
});

/** function-dummy's response: a condition and a result for the claim, and a condition for the XR only. */
function targetedComposition(): KubeObject {
  const response = {
    conditions: [
      {
        type: 'DatabaseReady',
        status: 'STATUS_CONDITION_TRUE',
        reason: 'Provisioned',
        target: 'TARGET_COMPOSITE_AND_CLAIM',
      },
      { type: 'XrOnly', status: 'STATUS_CONDITION_TRUE', reason: 'Fine', target: 'TARGET_COMPOSITE' },
    ],
    results: [
      {
        severity: 'SEVERITY_NORMAL',
        message: 'your database is ready',
        reason: 'DatabaseProvisioned',
        target: 'TARGET_COMPOSITE_AND_CLAIM',
      },
    ],
  };
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: 'targeted' },
    spec: {
      compositeTypeRef: { apiVersion: `${GROUP}/v1`, kind: XR_KIND },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'dummy',
          functionRef: { name: 'function-dummy-claims' },
          input: { apiVersion: 'dummy.fn.crossplane.io/v1beta1', kind: 'Response', response },
        },
      ],
    },
  };
}
