import { expect } from 'chai';
import { ApiError, Discovery, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { USAGE_POLICY_NAME } from '../../src/usage/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  get,
  installApi,
  mergePatch,
  ptComposition,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// Usages and ClusterUsages on the real API server: compositor's ValidatingAdmissionPolicy refuses deleting an object
// a Usage names, with Crossplane's message, until the Usage is gone; selectors resolve into resourceRefs; deleting an
// XR deletes the composed user before the used object; a recorded deletion attempt is replayed.

type Labelled = KubeObject & {
  metadata: KubeObject['metadata'] & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { uid: string }[];
    uid?: string;
    deletionTimestamp?: string;
  };
};

const IN_USE = 'crossplane.io/in-use';
const ATTEMPT = 'usage.crossplane.io/deletion-attempt-with-policy';
const HOLD = 'usage.compositor.test/hold';

function configMap(name: string, labels?: Record<string, string>): Labelled {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  };
}

function usage(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'protection.crossplane.io/v1beta1',
    kind: 'Usage',
    metadata: { name, namespace: 'default' },
    spec,
  };
}

const ofConfigMap = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  resourceRef: { name },
});

/** The API server's refusal of the object's DELETE, or undefined when it would delete it (dry run: nothing goes). */
async function refusal(client: KubeClient, object: KubeObject): Promise<ApiError | undefined> {
  const path = await new Discovery(client).path(
    object.apiVersion,
    object.kind,
    object.metadata.name,
    object.metadata.namespace,
  );
  try {
    await client.request('DELETE', path, { query: { dryRun: 'All' } });
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

async function inUse(client: KubeClient, object: KubeObject): Promise<Labelled> {
  return eventually(`${object.kind} ${object.metadata.name} labelled ${IN_USE}`, async () => {
    const found = await get<Labelled>(client, object);
    return found?.metadata.labels?.[IN_USE] === 'true' ? found : undefined;
  });
}

async function gone(client: KubeClient, object: KubeObject, timeoutMs = 30_000): Promise<void> {
  await eventually(
    `${object.kind} ${object.metadata.name} deleted`,
    async () => ((await get(client, object)) === undefined ? true : undefined),
    { timeoutMs },
  );
}

describe('Usages', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine();
  });

  after(async () => {
    await running.stop();
  });

  it('installs the admission policy and its binding', async () => {
    for (const kind of ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']) {
      const found = await get(client, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { name: USAGE_POLICY_NAME },
      });
      expect(found, kind).to.not.equal(undefined);
    }
  });

  it('refuses deleting a used object with Crossplane message until no Usage names it', async () => {
    const used = configMap('usage-used');
    const user = configMap('usage-user');
    await apply(client, used);
    const userObject = await apply<Labelled>(client, user);
    await apply(client, usage('usage-a', { of: ofConfigMap('usage-used'), by: ofConfigMap('usage-user') }));
    await inUse(client, used);

    const refused = await eventually('the deletion refused', () => refusal(client, used));
    expect(refused.status).to.equal(403);
    expect(refused.message).to.include(
      'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "usage-a" (in namespace "default") by resource ConfigMap/usage-user.',
    );
    const configured = await eventually('usage-a Ready and owned by its user', async () => {
      const found = await get<Labelled & XrObject>(client, usage('usage-a', {}));
      const owned = found?.metadata.ownerReferences?.some((o) => o.uid === userObject.metadata.uid);
      return condition(found, 'Ready')?.status === 'True' && owned ? found : undefined;
    });
    expect(configured.metadata.annotations?.['crossplane.io/usage-details']).to.equal(
      'ConfigMap/usage-user uses ConfigMap/usage-used',
    );

    // A second Usage: the message counts both and names the first by name.
    await apply(client, usage('usage-b', { of: ofConfigMap('usage-used'), reason: 'kept for audits' }));
    await eventually('the message counting two Usages', async () => {
      const err = await refusal(client, used);
      return err?.message.includes('in-use by 2 usage(s), including the *v1beta1.Usage "usage-a"') ? err : undefined;
    });

    await remove(client, usage('usage-a', {}));
    const second = await eventually('the message naming the remaining Usage', async () => {
      const err = await refusal(client, used);
      return err?.message.includes('in-use by 1 usage(s)') ? err : undefined;
    });
    expect(second.message).to.include(
      'including the *v1beta1.Usage "usage-b" (in namespace "default") with reason: "kept for audits".',
    );
    await remove(client, usage('usage-b', {}));
    await gone(client, usage('usage-b', {}));
    const unlabelled = await get<Labelled>(client, used);
    expect(unlabelled?.metadata.labels?.[IN_USE]).to.equal(undefined);
    expect(await refusal(client, used)).to.equal(undefined);
    await remove(client, used);
    await gone(client, used);
    await remove(client, user);
  });

  it('resolves a ClusterUsage selector and protects a cluster-scoped object', async () => {
    const namespace: Labelled = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'usage-protected', labels: { 'usage.compositor.test/protect': 'yes' } },
    };
    await apply(client, namespace);
    const clusterUsage: KubeObject = {
      apiVersion: 'protection.crossplane.io/v1beta1',
      kind: 'ClusterUsage',
      metadata: { name: 'protect-namespace' },
      spec: {
        of: {
          apiVersion: 'v1',
          kind: 'Namespace',
          resourceSelector: { matchLabels: { 'usage.compositor.test/protect': 'yes' } },
        },
        reason: 'production',
      },
    };
    await apply(client, clusterUsage);
    const resolved = await eventually('the selector resolved into resourceRef', async () => {
      const found = await get<KubeObject & { spec: { of: { resourceRef?: { name: string } } } }>(client, clusterUsage);
      return found?.spec.of.resourceRef;
    });
    expect(resolved).to.deep.equal({ name: 'usage-protected' });
    await inUse(client, namespace);
    const refused = await eventually('the deletion refused', () => refusal(client, namespace));
    expect(refused.message).to.include(
      'This resource is in-use by 1 usage(s), including the *v1beta1.ClusterUsage "protect-namespace" with reason: "production".',
    );
    await remove(client, clusterUsage);
    await gone(client, clusterUsage);
    expect(await refusal(client, namespace)).to.equal(undefined);
    await remove(client, namespace);
  });

  it('replays a recorded deletion attempt when a Usage with replayDeletion goes', async () => {
    const used = configMap('usage-replayed');
    await apply(client, used);
    await apply(
      client,
      usage('usage-replay', { of: ofConfigMap('usage-replayed'), reason: 'replay', replayDeletion: true }),
    );
    await inUse(client, used);
    expect((await eventually('the deletion refused', () => refusal(client, used))).status).to.equal(403);
    // What Crossplane's webhook records on a refused attempt, and compositor's composite controller on its own.
    await mergePatch(client, used, { metadata: { annotations: { [ATTEMPT]: 'Background' } } });
    await remove(client, usage('usage-replay', {}));
    await gone(client, used);
  });

  describe('deleting an XR', () => {
    const api = testApi('usage.compositor.test', 'XUsing');

    before(async () => {
      await installApi(client, api);
      await apply(client, usingComposition());
    });

    after(async () => {
      await remove(client, {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'CompositeResourceDefinition',
        metadata: { name: `${api.plural}.${api.group}` },
      });
    });

    function usingComposition(): KubeObject {
      // The user carries a finalizer the test holds it with, so the state between the two deletions can be looked at.
      const resource = (name: string, role: string, finalizers: string[] = []): Record<string, unknown> => ({
        name,
        base: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { labels: { 'usage.compositor.test/role': role }, finalizers },
        },
      });
      const select = (role: string): Record<string, unknown> => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resourceSelector: { matchLabels: { 'usage.compositor.test/role': role }, matchControllerRef: true },
      });
      return ptComposition(api, [
        resource('database', 'used'),
        resource('app', 'user', [HOLD]),
        {
          name: 'app-uses-database',
          base: {
            apiVersion: 'protection.crossplane.io/v1beta1',
            kind: 'Usage',
            spec: { of: select('used'), by: select('user'), replayDeletion: true },
          },
        },
      ]);
    }

    /** What a wait for the composed objects saw: the XR's conditions, the databases' labels and the Usages' state. */
    async function composedState(xr: XrObject, databases: Labelled[]): Promise<string> {
      const found = await get<XrObject>(client, xr);
      const usages = await client.request<{ items: (Labelled & XrObject)[] }>(
        'GET',
        '/apis/protection.crossplane.io/v1beta1/namespaces/default/usages',
      );
      return JSON.stringify({
        xr: found?.status?.conditions,
        databases: databases.map((d) => ({ name: d.metadata.name, labels: d.metadata.labels })),
        usages: usages.items.map((u) => ({ name: u.metadata.name, spec: u.spec, conditions: u.status?.conditions })),
      });
    }

    it('deletes the composed user before the object it uses', async () => {
      const xr: XrObject = {
        apiVersion: api.apiVersion,
        kind: api.kind,
        metadata: { name: 'ordered', namespace: 'default' },
        spec: {},
      };
      await apply(client, xr);
      const list = async (role: string): Promise<Labelled[]> => {
        const found = await client.request<{ items: Labelled[] }>('GET', '/api/v1/namespaces/default/configmaps', {
          query: { labelSelector: `usage.compositor.test/role=${role},crossplane.io/composite=ordered` },
        });
        return found.items;
      };
      const [database] = await eventually('the composed database in use', async () => {
        const items = await list('used');
        if (items[0]?.metadata.labels?.[IN_USE] === 'true') return items;
        throw new Error(await composedState(xr, items));
      });
      if (!database) throw new Error('no database');
      await eventually('the XR Ready', async () => {
        const found = await get<XrObject>(client, xr);
        return condition(found, 'Ready')?.status === 'True' ? found : undefined;
      });
      expect((await list('user')).length).to.equal(1);

      await remove(client, xr);
      // While the user is held by its finalizer, the database's deletion is refused and the attempt recorded.
      const held = await eventually('the user being deleted and the database attempt recorded', async () => {
        const [[user], [db]] = await Promise.all([list('user'), list('used')]);
        return user?.metadata.deletionTimestamp && db?.metadata.annotations?.[ATTEMPT] ? db : undefined;
      });
      expect(held.metadata.annotations?.[ATTEMPT]).to.equal('Background');
      expect(held.metadata.labels?.[IN_USE]).to.equal('true');
      const [user] = await list('user');
      if (!user) throw new Error('the user is gone already');
      await mergePatch(client, configMap(user.metadata.name), { metadata: { finalizers: null } });
      // The user gone, the Usage lets the database go: replayed, or the XR's next look deletes it.
      await eventually(
        'the XR and its composed resources deleted',
        async () => {
          const [users, databases, left] = await Promise.all([list('user'), list('used'), get(client, xr)]);
          return users.length === 0 && databases.length === 0 && left === undefined ? true : undefined;
        },
        { timeoutMs: 60_000 },
      );
    });
  });
});
