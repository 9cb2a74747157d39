import { expect } from 'chai';
import {
  checkConversion,
  CONVERSION_WITHOUT_CA,
  hasCapability,
  toManagedResourceDefinitions,
} from '../../../../src/packages/provider/index.js';
import type { PackageObject } from '../../../../src/packages/xpkg/index.js';

// A Provider's CRDs as Crossplane v2.3's converter (internal/converter/custom_to_managed.go) makes them MRDs.
const crd = (kind: string): PackageObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${kind.toLowerCase()}s.nop.crossplane.io` },
  spec: { group: 'nop.crossplane.io', names: { kind, plural: `${kind.toLowerCase()}s` }, scope: 'Cluster' },
  status: { acceptedNames: { kind: '', plural: '' } },
});
const webhook: PackageObject = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'nop' },
};

describe('packages/provider/convert: CRDs as ManagedResourceDefinitions', () => {
  const cases: Record<string, { reason: string; objects: PackageObject[]; capabilities?: string[]; want: string[] }> = {
    managed: {
      reason: 'a managed resource CRD becomes an MRD, Active without safe-start',
      objects: [crd('NopResource')],
      want: ['ManagedResourceDefinition/nopresources.nop.crossplane.io/Active'],
    },
    configuration: {
      reason: "the provider's configuration kinds stay CRDs",
      objects: [crd('ProviderConfig'), crd('ClusterProviderConfig'), crd('ProviderConfigUsage')],
      want: [
        'CustomResourceDefinition/providerconfigs.nop.crossplane.io/-',
        'CustomResourceDefinition/clusterproviderconfigs.nop.crossplane.io/-',
        'CustomResourceDefinition/providerconfigusages.nop.crossplane.io/-',
      ],
    },
    safeStart: {
      reason: 'a safe-start provider leaves its MRDs without a state (the CRD default, Inactive)',
      objects: [crd('NopResource')],
      capabilities: ['SafeStart'],
      want: ['ManagedResourceDefinition/nopresources.nop.crossplane.io/-'],
    },
    others: {
      reason: 'objects other than CRDs are returned as they are',
      objects: [webhook],
      want: ['ValidatingWebhookConfiguration/nop/-'],
    },
  };
  for (const [name, { reason, objects, capabilities, want }] of Object.entries(cases)) {
    it(name, () => {
      const got = toManagedResourceDefinitions(objects, capabilities).map((o) => {
        const state = (o.spec as { state?: string } | undefined)?.state ?? '-';
        return `${o.kind}/${o.metadata?.name ?? ''}/${state}`;
      });
      expect(got, reason).to.deep.equal(want);
    });
  }

  it('keeps the CRD spec as the MRD spec, under apiextensions.crossplane.io/v1alpha1, without the CRD status', () => {
    const [mrd] = toManagedResourceDefinitions([crd('NopResource')], []);
    expect(mrd).to.deep.equal({
      apiVersion: 'apiextensions.crossplane.io/v1alpha1',
      kind: 'ManagedResourceDefinition',
      metadata: { name: 'nopresources.nop.crossplane.io' },
      spec: {
        group: 'nop.crossplane.io',
        names: { kind: 'NopResource', plural: 'nopresources' },
        scope: 'Cluster',
        state: 'Active',
      },
    });
  });

  it('matches capabilities as upstream: letters and digits only, any case', () => {
    expect(hasCapability(['safe-start'], 'safe-start')).to.equal(true);
    expect(hasCapability(['Safe_Start'], 'safe-start')).to.equal(true);
    expect(hasCapability(['safestarter'], 'safe-start')).to.equal(false);
    expect(hasCapability(undefined, 'safe-start')).to.equal(false);
  });

  it('refuses a CRD converted by webhook, as upstream without the runtime TLS bundle; other strategies pass', () => {
    const withConversion = (strategy: string): PackageObject => ({
      ...crd('Object'),
      spec: { conversion: { strategy } },
    });
    expect(() => {
      checkConversion([crd('NopResource'), withConversion('Webhook')]);
    }).to.throw(CONVERSION_WITHOUT_CA);
    expect(() => {
      checkConversion([withConversion('None'), webhook]);
    }).to.not.throw();
  });
});
