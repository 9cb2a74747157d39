/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any --
   the manifests are plain JSON read field by field in assertions */
import { expect } from 'chai';
import {
  buildDeployment,
  buildService,
  buildServiceAccount,
  type DeploymentRuntimeConfig,
  type FunctionRevision,
} from '../../../src/packages/index.js';

type Obj = Record<string, any>;

const revision: FunctionRevision = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'FunctionRevision',
  metadata: { name: 'fn-abc', uid: 'u1', labels: { 'pkg.crossplane.io/package': 'fn' } },
  spec: {
    desiredState: 'Active',
    image: 'xpkg.io/org/fn:v1',
    revision: 1,
    packagePullSecrets: [{ name: 'pull' }],
    tlsServerSecretName: 'fn-tls-server',
  },
};

function config(spec: DeploymentRuntimeConfig['spec']): DeploymentRuntimeConfig {
  return { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'DeploymentRuntimeConfig', metadata: { name: 'c' }, spec };
}

describe('packages/manifests', () => {
  it('without a runtime config: the package image, non-root, read-only root, TLS mounted at /tls/server, gRPC 9443', () => {
    const d = buildDeployment({ revision, namespace: 'sys' }, 'fn-abc') as Obj;
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    expect(d.metadata).to.include({ name: 'fn-abc', namespace: 'sys' });
    expect(d.metadata.ownerReferences[0]).to.include({ kind: 'FunctionRevision', name: 'fn-abc', controller: true });
    expect(d.spec.selector.matchLabels).to.deep.equal({
      'pkg.crossplane.io/revision': 'fn-abc',
      'pkg.crossplane.io/function': 'fn',
    });
    expect(c).to.include({ name: 'package-runtime', image: 'xpkg.io/org/fn:v1', imagePullPolicy: 'IfNotPresent' });
    expect(c.securityContext).to.include({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(pod.securityContext).to.include({ runAsNonRoot: true, runAsUser: 2000 });
    expect(c.volumeMounts).to.deep.equal([{ name: 'tls-server-certs', readOnly: true, mountPath: '/tls/server' }]);
    expect(c.env).to.deep.equal([{ name: 'TLS_SERVER_CERTS_DIR', value: '/tls/server' }]);
    expect(c.ports).to.deep.include({ name: 'grpc', containerPort: 9443 });
    expect(pod.imagePullSecrets).to.deep.equal([{ name: 'pull' }]);
    expect(pod.serviceAccountName).to.equal('fn-abc');
  });

  const cases: Record<string, { reason: string; spec: DeploymentRuntimeConfig['spec']; check: (d: Obj) => void }> = {
    replicasAndImage: {
      reason: "the runtime config's replicas and runtime image are kept",
      spec: {
        deploymentTemplate: {
          spec: {
            replicas: 3,
            template: { spec: { containers: [{ name: 'package-runtime', image: 'mirror/fn:v1' }] } },
          },
        },
      },
      check: (d) => {
        expect(d.spec.replicas).to.equal(3);
        expect(d.spec.template.spec.containers[0].image).to.equal('mirror/fn:v1');
      },
    },
    sidecarFirst: {
      reason: 'the runtime container is moved first; others stay',
      spec: {
        deploymentTemplate: {
          spec: { template: { spec: { containers: [{ name: 'side' }, { name: 'package-runtime' }] } } },
        },
      },
      check: (d) => {
        expect(d.spec.template.spec.containers.map((c: Obj) => c.name)).to.deep.equal(['package-runtime', 'side']);
      },
    },
    selectorWins: {
      reason: "compositor's selector and pod labels win; the config's other pod labels stay",
      spec: {
        deploymentTemplate: {
          spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { team: 'x' } } } },
        },
      },
      check: (d) => {
        expect(d.spec.selector.matchLabels).to.not.have.property('a');
        expect(d.spec.template.metadata.labels).to.include({ team: 'x', 'pkg.crossplane.io/revision': 'fn-abc' });
      },
    },
    securityKept: {
      reason: "the config's security contexts replace the defaults",
      spec: {
        deploymentTemplate: {
          spec: {
            template: { spec: { securityContext: {}, containers: [{ name: 'package-runtime', securityContext: {} }] } },
          },
        },
      },
      check: (d) => {
        expect(d.spec.template.spec.securityContext).to.deep.equal({});
        expect(d.spec.template.spec.containers[0].securityContext).to.deep.equal({});
      },
    },
    metadata: {
      reason: "the config's Deployment name, labels and annotations are used",
      spec: { deploymentTemplate: { metadata: { name: 'custom', labels: { l: '1' } } } },
      check: (d) => {
        expect(d.metadata).to.include({ name: 'custom' });
        expect(d.metadata.labels).to.deep.equal({ l: '1' });
      },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`DeploymentRuntimeConfig merge: ${name}`, () => {
      c.check(buildDeployment({ revision, namespace: 'sys', runtimeConfig: config(c.spec) }, 'fn-abc'));
    });
  }

  it('packagePullPolicy overrides the runtime config', () => {
    const rev = { ...revision, spec: { ...revision.spec, packagePullPolicy: 'Always' } };
    const spec = {
      deploymentTemplate: {
        spec: { template: { spec: { containers: [{ name: 'package-runtime', imagePullPolicy: 'Never' }] } } },
      },
    };
    const d = buildDeployment({ revision: rev, namespace: 'sys', runtimeConfig: config(spec) }, 'sa') as Obj;
    expect(d.spec.template.spec.containers[0].imagePullPolicy).to.equal('Always');
  });

  it('the Service is headless, named after the Function, TLS gRPC on 9443; the ServiceAccount after the revision', () => {
    const s = buildService({ revision, namespace: 'sys' }) as Obj;
    expect(s.metadata.name).to.equal('fn');
    expect(s.spec.clusterIP).to.equal('None');
    expect(s.spec.ports).to.deep.equal([
      { name: 'grpc', protocol: 'TCP', port: 9443, targetPort: 'grpc', appProtocol: 'tls' },
    ]);
    const named = buildService({
      revision,
      namespace: 'sys',
      runtimeConfig: config({ serviceTemplate: { metadata: { name: 'svc' } } }),
    });
    expect(named.metadata.name).to.equal('svc');
    const sa = buildServiceAccount({ revision, namespace: 'sys' }) as Obj;
    expect(sa.metadata.name).to.equal('fn-abc');
    expect(sa.imagePullSecrets).to.deep.equal([{ name: 'pull' }]);
  });
});
