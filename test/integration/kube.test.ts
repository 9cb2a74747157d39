import { expect } from 'chai';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { controlPlane, eventually } from './harness.js';

describe('the local control plane (integration)', () => {
  const group = 'widgets.test.compositor.io';

  after(async () => {
    const api = controlPlane().kubeConfig.makeApiClient(ApiextensionsV1Api);
    await api.deleteCustomResourceDefinition({ name: `widgets.${group}` }).catch(() => undefined);
  });

  it('serves a CRD and a custom object created and read back through @kubernetes/client-node', async () => {
    const kc = controlPlane().kubeConfig;
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
                },
              },
            },
          ],
        },
      },
    });
    await eventually('the Widget CRD to be Established', async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: `widgets.${group}` });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });

    const objects = kc.makeApiClient(CustomObjectsApi);
    const body = {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'first', namespace: 'default' },
      spec: { size: 3 },
    };
    // A CRD's API can answer 404 for a moment after Established while discovery catches up.
    await eventually('the Widget to be created', () =>
      objects.createNamespacedCustomObject({ group, version: 'v1', namespace: 'default', plural: 'widgets', body }),
    );
    const read = (await objects.getNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: 'default',
      plural: 'widgets',
      name: 'first',
    })) as typeof body & { metadata: { uid?: string } };
    expect(read.spec).to.deep.equal({ size: 3 });
    expect(read.metadata.uid).to.be.a('string');
  });

  it('runs the garbage collector: deleting an owner deletes what it owns', async function () {
    if (controlPlane().external) this.skip();
    const client = controlPlane().client();
    const owner = await client.request<{ metadata: { uid: string } }>('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gc-owner' } },
    });
    await client.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'gc-owned',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-owner', uid: owner.metadata.uid }],
        },
      },
    });
    await client.request('DELETE', '/api/v1/namespaces/default/configmaps/gc-owner');
    await eventually(
      'kube-controller-manager to collect the owned ConfigMap',
      async () => {
        try {
          await client.request('GET', '/api/v1/namespaces/default/configmaps/gc-owned');
          return undefined;
        } catch (err) {
          return (err as { status?: number }).status === 404 ? true : undefined;
        }
      },
      { timeoutMs: 45_000 },
    );
  });
});
