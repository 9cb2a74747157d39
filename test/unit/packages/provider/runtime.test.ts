/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any --
   the manifests are plain JSON read field by field in assertions */
import { expect } from 'chai';
import {
  buildDeployment,
  buildService,
  buildServiceAccount,
  type RuntimeRevision,
} from '../../../../src/packages/index.js';
import { PROVIDER_KIND, PROVIDER_RUNTIME, pointWebhooks } from '../../../../src/packages/provider/index.js';
import type { FetchedPackage, PackageObject } from '../../../../src/packages/xpkg/index.js';

// A Provider's runtime objects as Crossplane v2.3 builds them (internal/controller/pkg/runtime/runtime.go,
// runtime_provider.go), and its webhooks pointed at its Service (revision/establisher.go).
type Obj = Record<string, any>;

const revision: RuntimeRevision = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'ProviderRevision',
  metadata: { name: 'provider-nop-abc', uid: 'u1', labels: { 'pkg.crossplane.io/package': 'provider-nop' } },
  spec: {
    desiredState: 'Active',
    image: 'xpkg.io/crossplane-contrib/provider-nop:v0.5.0',
    packagePullSecrets: [{ name: 'pull' }],
    tlsServerSecretName: 'provider-nop-tls-server',
    tlsClientSecretName: 'provider-nop-tls-client',
  },
};
const input = { revision, namespace: 'crossplane-system', kind: PROVIDER_RUNTIME };
const fieldRef = (fieldPath: string): Obj => ({ valueFrom: { fieldRef: { fieldPath } } });

describe('packages/provider runtime', () => {
  it("the Deployment: upstream's environment, ports, TLS mounts, security context, labels and scrape annotations", () => {
    const d = buildDeployment(input, 'provider-nop-abc') as Obj;
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    expect(d.metadata).to.include({ name: 'provider-nop-abc', namespace: 'crossplane-system' });
    expect(d.metadata.ownerReferences[0]).to.include({ kind: 'ProviderRevision', name: 'provider-nop-abc' });
    const labels = { 'pkg.crossplane.io/revision': 'provider-nop-abc', 'pkg.crossplane.io/provider': 'provider-nop' };
    expect(d.spec.selector.matchLabels).to.deep.equal(labels);
    expect(d.spec.template.metadata.labels).to.deep.equal(labels);
    expect(d.spec.template.metadata.annotations).to.deep.equal({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '8080',
      'prometheus.io/path': '/metrics',
    });
    expect(c).to.include({ name: 'package-runtime', image: revision.spec.image, imagePullPolicy: 'IfNotPresent' });
    expect(c.env).to.deep.equal([
      { name: 'TLS_CLIENT_CERTS_DIR', value: '/tls/client' },
      { name: 'TLS_SERVER_CERTS_DIR', value: '/tls/server' },
      { name: 'POD_NAMESPACE', ...fieldRef('metadata.namespace') },
      { name: 'PROVIDER_NAME', ...fieldRef("metadata.labels['pkg.crossplane.io/provider']") },
      { name: 'REVISION_NAME', ...fieldRef("metadata.labels['pkg.crossplane.io/revision']") },
      { name: 'REVISION_UID', value: 'u1' },
      { name: 'WEBHOOK_TLS_CERT_DIR', value: '$(TLS_SERVER_CERTS_DIR)' },
    ]);
    expect(c.ports).to.deep.equal([
      { name: 'metrics', containerPort: 8080 },
      { name: 'webhook', containerPort: 9443 },
    ]);
    expect(c.volumeMounts).to.deep.equal([
      { name: 'tls-client-certs', readOnly: true, mountPath: '/tls/client' },
      { name: 'tls-server-certs', readOnly: true, mountPath: '/tls/server' },
    ]);
    const items = ['tls.crt', 'tls.key', 'ca.crt'].map((key) => ({ key, path: key }));
    expect(pod.volumes).to.deep.equal([
      { name: 'tls-client-certs', secret: { secretName: 'provider-nop-tls-client', items } },
      { name: 'tls-server-certs', secret: { secretName: 'provider-nop-tls-server', items } },
    ]);
    expect(c.securityContext).to.deep.equal({
      runAsUser: 2000,
      runAsGroup: 2000,
      allowPrivilegeEscalation: false,
      privileged: false,
      runAsNonRoot: true,
    });
    expect(pod.securityContext).to.deep.equal({ runAsNonRoot: true, runAsUser: 2000, runAsGroup: 2000 });
    expect(pod.serviceAccountName).to.equal('provider-nop-abc');
    expect(pod.imagePullSecrets).to.deep.equal([{ name: 'pull' }]);
  });

  it("a runtime config's scrape annotation and metrics port are kept; no webhook port without a server Secret", () => {
    const rev = { ...revision, spec: { ...revision.spec, tlsServerSecretName: undefined } };
    const runtimeConfig = {
      apiVersion: 'pkg.crossplane.io/v1beta1',
      kind: 'DeploymentRuntimeConfig',
      metadata: { name: 'c' },
      spec: {
        deploymentTemplate: {
          spec: {
            template: {
              metadata: { annotations: { 'prometheus.io/scrape': 'false' } },
              spec: { containers: [{ name: 'package-runtime', ports: [{ name: 'metrics', containerPort: 9090 }] }] },
            },
          },
        },
      },
    };
    const d = buildDeployment({ ...input, revision: rev, runtimeConfig }, 'sa') as Obj;
    const c = d.spec.template.spec.containers[0];
    expect(d.spec.template.metadata.annotations).to.deep.equal({ 'prometheus.io/scrape': 'false' });
    expect(c.ports).to.deep.equal([{ name: 'metrics', containerPort: 9090 }]);
    expect(c.env.map((e: Obj) => e.name)).to.not.include('WEBHOOK_TLS_CERT_DIR');
  });

  it('the Service is named after the provider, with the webhook port, not headless; the ServiceAccount after the revision', () => {
    const s = buildService(input) as Obj;
    expect(s.metadata).to.include({ name: 'provider-nop', namespace: 'crossplane-system' });
    expect(s.spec).to.deep.equal({
      selector: { 'pkg.crossplane.io/revision': 'provider-nop-abc', 'pkg.crossplane.io/provider': 'provider-nop' },
      ports: [{ name: 'webhook', protocol: 'TCP', port: 9443, targetPort: 'webhook' }],
    });
    const sa = buildServiceAccount(input) as Obj;
    expect(sa.metadata.name).to.equal('provider-nop-abc');
    expect(sa.metadata.ownerReferences[0]).to.include({ kind: 'ProviderRevision', controller: true });
  });
});

const crd = (strategy?: string): PackageObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'objects.kubernetes.crossplane.io' },
  spec: {
    group: 'kubernetes.crossplane.io',
    names: { kind: 'Object', plural: 'objects' },
    versions: [],
    ...(strategy ? { conversion: { strategy, webhook: { conversionReviewVersions: ['v1'] } } } : {}),
  },
});
const validating: PackageObject = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'validating-webhook-configuration' },
  webhooks: [
    {
      name: 'nopresources.nop.crossplane.io',
      clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/validate' } },
    },
  ],
};
const target = {
  service: { name: 'provider-kubernetes', namespace: 'crossplane-system', port: 9443 },
  caBundle: '-----BEGIN CERTIFICATE-----\n',
};
const bundle = Buffer.from(target.caBundle).toString('base64');

function fetched(objects: PackageObject[]): FetchedPackage {
  const meta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Provider' as const, metadata: { name: 'p' } };
  return { meta: [meta], objects, source: '', version: '', digest: '', resolvedRef: '' };
}

describe('packages/provider webhooks', () => {
  it("a webhook-converted CRD gets the provider's Service and the CA bundle; others are left as they are", () => {
    const [converted, plain] = pointWebhooks([crd('Webhook'), crd()], target) as Obj[];
    expect(converted?.spec.conversion).to.deep.equal({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: target.service, caBundle: bundle },
      },
    });
    expect(plain).to.deep.equal(crd());
  });

  it('a webhook configuration is named after the provider, each webhook pointed at its Service, its path kept', () => {
    const [conf] = pointWebhooks([validating], target) as Obj[];
    expect(conf?.metadata.name).to.equal('crossplane-provider-provider-kubernetes');
    expect(conf?.webhooks[0].clientConfig).to.deep.equal({
      service: { ...target.service, path: '/validate' },
      caBundle: bundle,
    });
  });

  it('without a TLS bundle a webhook-converted CRD is refused, and webhook configurations are left out', () => {
    expect(() => PROVIDER_KIND.objects?.(fetched([crd('Webhook')]), undefined)).to.throw(
      'cannot deploy a CRD with webhook conversion strategy without having a TLS bundle',
    );
    const objects = PROVIDER_KIND.objects?.(fetched([validating, crd()]), undefined) ?? [];
    expect(objects.map((o) => o.kind)).to.deep.equal(['ManagedResourceDefinition']);
    const served = PROVIDER_KIND.objects?.(fetched([validating, crd('Webhook')]), target) ?? [];
    expect(served.map((o) => o.kind)).to.deep.equal(['ValidatingWebhookConfiguration', 'ManagedResourceDefinition']);
  });

  it("the revision's TLS Secret names are the provider's, as upstream's GetSecretNameWithSuffix", () => {
    expect(PROVIDER_KIND.named?.('provider-nop')).to.deep.equal({
      tlsServerSecretName: 'provider-nop-tls-server',
      tlsClientSecretName: 'provider-nop-tls-client',
    });
  });
});
