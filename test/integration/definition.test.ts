import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../src/apis/index.js';
import type { CustomResourceDefinition } from '../../src/apis/index.js';
import { renderXrCrd, validateXrd, type CompositeResourceDefinition } from '../../src/definition/index.js';
import { CONTENT_TYPE, isEstablished, isNotFound } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('definition: rendered XR CRDs (integration)', () => {
  const example = parse(
    readFileSync(join(packageRoot(), 'examples', '10-xrd.yaml'), 'utf8'),
  ) as CompositeResourceDefinition;

  after(async () => {
    await controlPlane()
      .client()
      .request('DELETE', `${CRDS}/${example.metadata.name}`)
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  });

  it('the example XRD renders a CRD that the API server establishes', async () => {
    expect(validateXrd(example)).to.deep.equal([]);
    const client = controlPlane().client();
    // Rendered from the XRD as the API server stores it: its schema defaults the composition update policy.
    const stored = { ...example, spec: { defaultCompositionUpdatePolicy: 'Automatic' as const, ...example.spec } };
    await client.request('POST', CRDS, { body: renderXrCrd(stored) });
    await eventually('the App CRD to be Established', async () => {
      const crd = await client.request<CustomResourceDefinition>('GET', `${CRDS}/${example.metadata.name}`);
      return isEstablished(crd) ? crd : undefined;
    });
  });

  it("keeps compositor's status fields through the API server's pruning", async () => {
    const client = controlPlane().client();
    const path = '/apis/example.compositor.crossplane.io/v1/namespaces/default/apps';
    await eventually('the App API to accept objects', () =>
      client.request('POST', path, {
        body: {
          apiVersion: 'example.compositor.crossplane.io/v1',
          kind: 'App',
          metadata: { name: 'pruning' },
          spec: { image: 'nginx' },
        },
      }),
    );
    // compositor writes status with server-side apply, which rejects any field the schema does not declare.
    const status = {
      lastHandledReconcileAt: '2026-11-23T10:00:00Z',
      effectivePollInterval: '10s',
      conditions: [
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: '2026-11-23T10:00:00Z' },
      ],
    };
    await client.request('PATCH', `${path}/pruning/status`, {
      body: { apiVersion: 'example.compositor.crossplane.io/v1', kind: 'App', metadata: { name: 'pruning' }, status },
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'apiextensions.crossplane.io/composite', force: true },
    });
    // Other writers' undeclared fields are pruned silently, which is what happened to upstream's field.
    await client.request('PATCH', `${path}/pruning/status`, {
      body: { status: { unknownField: 'pruned' } },
      contentType: CONTENT_TYPE.mergePatch,
    });
    const stored = await client.request<{ status: Record<string, unknown>; spec: Record<string, unknown> }>(
      'GET',
      `${path}/pruning`,
    );
    expect(stored.status).to.include({ lastHandledReconcileAt: '2026-11-23T10:00:00Z', effectivePollInterval: '10s' });
    expect(stored.status, 'fields outside the schema are pruned').not.to.have.property('unknownField');
    expect(stored.spec, 'the schema default of the user applies').to.include({ replicas: 1 });
  });

  it('accepts spec.crossplane machinery and rejects an unknown update policy', async () => {
    const client = controlPlane().client();
    const path = '/apis/example.compositor.crossplane.io/v1/namespaces/default/apps';
    const created = await client.request<{ spec: { crossplane: Record<string, unknown> } }>('POST', path, {
      body: {
        apiVersion: 'example.compositor.crossplane.io/v1',
        kind: 'App',
        metadata: { name: 'machinery' },
        spec: { image: 'nginx', crossplane: { compositionRef: { name: 'apps.example.compositor.crossplane.io' } } },
      },
    });
    expect(created.spec.crossplane).to.deep.include({
      compositionRef: { name: 'apps.example.compositor.crossplane.io' },
      compositionUpdatePolicy: 'Automatic',
    });
    const rejected = await client
      .request('POST', path, {
        body: {
          apiVersion: 'example.compositor.crossplane.io/v1',
          kind: 'App',
          metadata: { name: 'bad-policy' },
          spec: { image: 'nginx', crossplane: { compositionUpdatePolicy: 'Sometimes' } },
        },
      })
      .then(
        () => undefined,
        (err: unknown) => err as Error,
      );
    expect(rejected?.message).to.include('compositionUpdatePolicy');
  });
});
