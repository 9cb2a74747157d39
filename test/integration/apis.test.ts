import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { ensureCrds } from '../../src/kube/index.js';
import { controlPlane } from './harness.js';

const XRDS = (version: string): string => `/apis/apiextensions.crossplane.io/${version}/compositeresourcedefinitions`;

function xrd(
  version: string,
  name: string,
  scope?: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: `apiextensions.crossplane.io/${version}`,
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${name}.scopes.example.org` },
    spec: {
      group: 'scopes.example.org',
      names: { kind: name, plural: name },
      ...(scope ? { scope } : {}),
      ...extra,
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
    for (const name of ['modern', 'legacy', 'claimed', 'immutable']) {
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

  it('rejects legacy fields through v2 and outside LegacyCluster through v1, with upstream messages', async () => {
    const client = controlPlane().client();
    const claims = { claimNames: { kind: 'Claim', plural: 'claims' }, connectionSecretKeys: ['a'] };
    const v2 = await rejection(() =>
      client.request('POST', XRDS('v2'), { body: xrd('v2', 'v2claims', undefined, claims) }),
    );
    expect(v2).to.include("Claims aren't supported in apiextensions.crossplane.io/v2");
    expect(v2).to.include("XR connection secrets aren't supported in apiextensions.crossplane.io/v2");
    const v1 = await rejection(() =>
      client.request('POST', XRDS('v1'), { body: xrd('v1', 'v1claims', 'Namespaced', claims) }),
    );
    expect(v1).to.include('Only LegacyCluster composite resources can offer claims');
    expect(v1).to.include('Only LegacyCluster composite resources support connection secrets');
    const plural = await rejection(() =>
      client.request('POST', XRDS('v1'), {
        body: {
          ...xrd('v1', 'upper'),
          spec: { ...(xrd('v1', 'upper').spec as object), names: { kind: 'U', plural: 'Uppers' } },
        },
      }),
    );
    expect(plural).to.include('Plural name must be lowercase');
    // A v1 LegacyCluster XRD offers claims and defaults its delete policy.
    const claimed = await client.request<{ spec: Record<string, unknown> }>('POST', XRDS('v1'), {
      body: xrd('v1', 'claimed', undefined, claims),
    });
    expect(claimed.spec.defaultCompositeDeletePolicy).to.equal('Background');
    expect(claimed.spec.defaultCompositionUpdatePolicy).to.equal('Automatic');
  });

  it('rejects changes to immutable XRD fields in the API server', async () => {
    const client = controlPlane().client();
    const path = `${XRDS('v1')}/immutable.scopes.example.org`;
    await client.request('POST', XRDS('v1'), {
      body: xrd('v1', 'immutable', 'Cluster', { enforcedCompositionRef: { name: 'a' } }),
    });
    for (const [field, value] of [
      ['enforcedCompositionRef', { name: 'b' }],
      ['scope', 'Namespaced'],
      ['group', 'other.example.org'],
    ] as const) {
      const error = await rejection(() =>
        client.request('PATCH', path, {
          body: { spec: { [field]: value } },
          contentType: 'application/merge-patch+json',
        }),
      );
      expect(error, field).to.include(`spec.${field}: Invalid value`).and.include('Value is immutable');
    }
  });
});

async function rejection(write: () => Promise<unknown>): Promise<string> {
  const error = await write().then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  if (!error) throw new Error('the API server accepted a write it should have rejected');
  return error.message;
}
