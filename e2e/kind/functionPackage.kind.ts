// kind only: `npm run e2e:kind` runs this after the shared scenarios (e2e/kind/run.sh); the local control plane has no
// kubelet to run a package image, so `npm run e2e` does not pick it up (not a *.test.ts). compositor, installed by the
// chart with its default --package-runtime=Deployment, installs a real packaged function from its Function manifest
// exactly as a user writes it, and an XR composes with it.
import { expect } from 'chai';
import type { KubeObject } from '../../src/kube/index.js';
import { apply, ensureNamespace, get, remove, type XrObject } from '../../test/integration/engine.js';
import { eventually } from '../../test/integration/harness.js';
import { RELEASE_NAMESPACE } from '../harness/chart.js';
import { withLogs } from '../harness/api.js';
import { target } from '../harness/setup.js';

/** The function under test; E2E_FUNCTION_PACKAGE tries another version or a mirror. */
const PACKAGE =
  process.env.E2E_FUNCTION_PACKAGE ?? 'xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.12.2';
const FUNCTION = 'function-go-templating';
const GROUP = 'packages.e2e.compositor.crossplane.io';
const KIND = 'XGreeting';
const PLURAL = 'xgreetings';
const NAMESPACE = 'e2e-packages';

interface Conditioned extends KubeObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const conditionOf = (object: Conditioned | undefined, type: string): string | undefined =>
  object?.status?.conditions?.find((c) => c.type === type)?.status;

const fn: KubeObject = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'Function',
  metadata: { name: FUNCTION },
  spec: { package: PACKAGE },
};

const xrd: KubeObject = {
  apiVersion: 'apiextensions.crossplane.io/v2',
  kind: 'CompositeResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: KIND, plural: PLURAL },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        referenceable: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { message: { type: 'string' } } } },
          },
        },
      },
    ],
  },
};

/** One ConfigMap rendered by function-go-templating, marked ready by the function itself. */
const TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: greeting
    gotemplating.fn.crossplane.io/ready: "True"
data:
  message: {{ .observed.composite.resource.spec.message | quote }}
`;

const composition: KubeObject = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'Composition',
  metadata: { name: PLURAL },
  spec: {
    compositeTypeRef: { apiVersion: `${GROUP}/v1`, kind: KIND },
    mode: 'Pipeline',
    pipeline: [
      {
        step: 'render',
        functionRef: { name: FUNCTION },
        input: {
          apiVersion: 'gotemplating.fn.crossplane.io/v1beta1',
          kind: 'GoTemplate',
          source: 'Inline',
          inline: { template: TEMPLATE },
        },
      },
    ],
  },
};

const MESSAGE = 'hello from a packaged function';
const xr: XrObject = {
  apiVersion: `${GROUP}/v1`,
  kind: KIND,
  metadata: { name: 'hello', namespace: NAMESPACE },
  spec: { message: MESSAGE } as XrObject['spec'],
};

describe('kind: a packaged function compositor runs (--package-runtime=Deployment)', function () {
  // The first pull of the function image can take minutes.
  this.timeout(600_000);

  before(async () => {
    const { client } = target();
    await ensureNamespace(client, NAMESPACE);
    await apply(client, fn);
    await apply(client, xrd);
    await apply(client, composition);
  });

  after(async () => {
    const { client } = target();
    await remove(client, xr).catch(() => undefined);
    await remove(client, composition).catch(() => undefined);
    await remove(client, xrd).catch(() => undefined);
    await remove(client, fn).catch(() => undefined);
  });

  it("runs the Function as Crossplane's package manager does: a revision, a Deployment, Installed and Healthy", async () => {
    const { client } = target();
    const installed = await withLogs(() =>
      eventually(
        `Function ${FUNCTION} Installed and Healthy`,
        async () => {
          const got = await get<Conditioned>(client, fn);
          if (conditionOf(got, 'Installed') === 'True' && conditionOf(got, 'Healthy') === 'True') return got;
          throw new Error(`Function status ${JSON.stringify(got?.status)}`);
        },
        { timeoutMs: 300_000, intervalMs: 2_000 },
      ),
    );
    const revisions = await client.request<{ items: (Conditioned & { spec: { desiredState: string } })[] }>(
      'GET',
      '/apis/pkg.crossplane.io/v1/functionrevisions',
      { query: { labelSelector: `pkg.crossplane.io/package=${FUNCTION}` } },
    );
    const active = revisions.items.filter((r) => r.spec.desiredState === 'Active');
    expect(active, JSON.stringify(installed.status)).to.have.length(1);
    const deployments = await client.request<{ items: KubeObject[] }>(
      'GET',
      `/apis/apps/v1/namespaces/${RELEASE_NAMESPACE}/deployments`,
      { query: { labelSelector: `pkg.crossplane.io/function=${FUNCTION}` } },
    );
    expect(deployments.items.map((d) => d.metadata.name)).to.deep.equal([active[0]?.metadata.name]);
    await client.request('GET', `/api/v1/namespaces/${RELEASE_NAMESPACE}/services/${FUNCTION}`);
  });

  it('composes with it: the XR becomes Ready with the ConfigMap its template renders', async () => {
    const { client } = target();
    await apply(client, xr);
    await withLogs(() =>
      eventually(
        'XR Synced and Ready',
        async () => {
          const got = await get<XrObject & Conditioned>(client, xr);
          if (conditionOf(got, 'Synced') === 'True' && conditionOf(got, 'Ready') === 'True') return true;
          throw new Error(`XR status ${JSON.stringify(got?.status)}`);
        },
        { timeoutMs: 120_000, intervalMs: 1_000 },
      ),
    );
    const composed = await client.request<{ items: (KubeObject & { data?: Record<string, string> })[] }>(
      'GET',
      `/api/v1/namespaces/${NAMESPACE}/configmaps`,
      { query: { labelSelector: `crossplane.io/composite=${xr.metadata.name}` } },
    );
    expect(composed.items.map((c) => c.data?.message)).to.deep.equal([MESSAGE]);
  });
});
