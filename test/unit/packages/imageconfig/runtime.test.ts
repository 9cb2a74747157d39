import { expect } from 'chai';
import {
  buildDeployment,
  type DeploymentRuntimeConfig,
  type FunctionRevision,
} from '../../../../src/packages/index.js';

// A runtime runs what the ImageConfigs make of its revision's image, as upstream's runtime runs status.resolvedImage
// with the SetImagePullSecret ImageConfig's secret added to the pod's.

interface Pod {
  imagePullSecrets?: { name: string }[];
  containers: { image?: string }[];
}

const revision: FunctionRevision = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'FunctionRevision',
  metadata: { name: 'fn-abc', uid: 'u1', labels: { 'pkg.crossplane.io/package': 'fn' } },
  spec: { desiredState: 'Active', image: 'xpkg.io/org/fn:v1', revision: 1, packagePullSecrets: [{ name: 'pull' }] },
};

function pod(input: Parameters<typeof buildDeployment>[0]): Pod {
  return (buildDeployment(input, 'fn-abc').spec as { template: { spec: Pod } }).template.spec;
}

describe('packages/imageconfig the runtime Deployment', () => {
  it('runs the rewritten image, with the ImageConfig pull secret after the package ones', () => {
    const got = pod({ revision, namespace: 'sys', image: { ref: 'mirror.io/fn:v1', pullSecret: 'mirror' } });
    expect(got.containers[0]?.image).to.equal('mirror.io/fn:v1');
    expect(got.imagePullSecrets).to.deep.equal([{ name: 'pull' }, { name: 'mirror' }]);
  });

  it('without ImageConfigs runs spec.image; a runtime config naming an image keeps it', () => {
    expect(pod({ revision, namespace: 'sys' }).containers[0]?.image).to.equal('xpkg.io/org/fn:v1');
    const runtimeConfig: DeploymentRuntimeConfig = {
      apiVersion: 'pkg.crossplane.io/v1beta1',
      kind: 'DeploymentRuntimeConfig',
      metadata: { name: 'c' },
      spec: {
        deploymentTemplate: {
          spec: { template: { spec: { containers: [{ name: 'package-runtime', image: 'own.io/fn:dev' }] } } },
        },
      },
    };
    const got = pod({ revision, namespace: 'sys', runtimeConfig, image: { ref: 'mirror.io/fn:v1' } });
    expect(got.containers[0]?.image).to.equal('own.io/fn:dev');
    expect(got.imagePullSecrets).to.deep.equal([{ name: 'pull' }]);
  });
});
