import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { ensureCrds } from '../../src/kube/index.js';
import { controlPlane } from './harness.js';

const XRDS = (version: string): string => `/apis/apiextensions.crossplane.io/${version}/compositeresourcedefinitions`;

function xrd(version: string, name: string, scope?: string): Record<string, unknown> {
  return {
    apiVersion: `apiextensions.crossplane.io/${version}`,
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${name}.scopes.example.org` },
    spec: {
      group: 'scopes.example.org',
      names: { kind: name, plural: name },
      ...(scope ? { scope } : {}),
      versions: [{ name: 'v1', served: true, referenceable: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  };
}

describe("compositor's CRDs (integration)", () => {
  before(async () => {
    await ensureCrds(controlPlane().client(), await loadCrds(), { timeoutMs: 30_000 });
  });

  after(async () => {
    const client = controlPlane().client();
    for (const name of ['modern', 'legacy']) {
      await client.request('DELETE', `${XRDS('v1')}/${name}.scopes.example.org`).catch(() => undefined);
    }
  });

  it('defaults an XRD scope by the version it was written with, as upstream', async () => {
    const client = controlPlane().client();
    await client.request('POST', XRDS('v2'), { body: xrd('v2', 'modern') });
    await client.request('POST', XRDS('v1'), { body: xrd('v1', 'legacy') });
    // Read both back through the storage version: the default was fixed at write time.
    const modern = await client.request<{ spec: { scope: string } }>('GET', `${XRDS('v1')}/modern.scopes.example.org`);
    const legacy = await client.request<{ spec: { scope: string } }>('GET', `${XRDS('v1')}/legacy.scopes.example.org`);
    expect(modern.spec.scope).to.equal('Namespaced');
    expect(legacy.spec.scope).to.equal('LegacyCluster');
  });

  it('rejects LegacyCluster through v2', async () => {
    const error = await controlPlane()
      .client()
      .request('POST', XRDS('v2'), { body: xrd('v2', 'rejected', 'LegacyCluster') })
      .then(
        () => undefined,
        (err: unknown) => err as Error,
      );
    expect(error?.message).to.include('spec.scope');
  });
});
