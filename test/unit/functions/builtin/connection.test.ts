import { expect } from 'chai';
import { patchAndTransform, type JsonObject } from '../../../../src/functions/index.js';

function accessKey(i: number): JsonObject {
  return {
    name: `accesskey-${i}`,
    base: { apiVersion: 'iam.aws.m.upbound.io/v1beta1', kind: 'AccessKey' },
    connectionDetails: [
      { name: `user-${i}`, type: 'FromConnectionSecretKey', fromConnectionSecretKey: 'username' },
      { name: `password-${i}`, type: 'FromConnectionSecretKey', fromConnectionSecretKey: 'password' },
    ],
  };
}

function observedKey(i: number): { resource: JsonObject; connectionDetails: Record<string, Uint8Array> } {
  return {
    resource: { apiVersion: 'iam.aws.m.upbound.io/v1beta1', kind: 'AccessKey', metadata: { name: `key-${i}` } },
    connectionDetails: { username: Buffer.from(`user${i}`), password: Buffer.from(`pw${i}`) },
  };
}

describe('functions/builtin/pt: connection details', () => {
  const input = {
    apiVersion: 'pt.fn.crossplane.io/v1beta1',
    kind: 'Resources',
    resources: [accessKey(0), accessKey(1)],
  };
  const observedResources = { 'accesskey-0': observedKey(0), 'accesskey-1': observedKey(1) };

  it('composes a connection Secret for a modern XR, at the XR own writeConnectionSecretToRef', () => {
    const xr = {
      apiVersion: 'example.org/v1alpha1',
      kind: 'UserAccessKey',
      metadata: { name: 'my-keys', namespace: 'default' },
      spec: { crossplane: {}, writeConnectionSecretToRef: { name: 'my-keys-connection-details' } },
    };
    const rsp = patchAndTransform({ input, observed: { composite: { resource: xr }, resources: observedResources } });
    expect(rsp.results).to.equal(undefined);
    // The real function leaves the details in the desired XR too; Crossplane v2 publishes none for a modern XR.
    expect(Object.keys(rsp.desired?.composite?.connectionDetails ?? {}).sort()).to.deep.equal(
      Object.keys(rsp.desired?.resources?.['my-keys-connection-secret']?.resource?.data ?? {}).sort(),
    );
    expect(rsp.desired?.resources?.['my-keys-connection-secret']).to.deep.equal({
      resource: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'my-keys-connection-details' },
        type: 'connection.crossplane.io/v1alpha1',
        data: {
          'user-0': Buffer.from('user0').toString('base64'),
          'password-0': Buffer.from('pw0').toString('base64'),
          'user-1': Buffer.from('user1').toString('base64'),
          'password-1': Buffer.from('pw1').toString('base64'),
        },
      },
      ready: 'READY_TRUE',
    });
  });

  it('returns the details as XR connection details for a legacy XR', () => {
    const xr = { apiVersion: 'example.org/v1alpha1', kind: 'UserAccessKey', metadata: { name: 'my-keys' }, spec: {} };
    const rsp = patchAndTransform({ input, observed: { composite: { resource: xr }, resources: observedResources } });
    const details = rsp.desired?.composite?.connectionDetails ?? {};
    expect(Object.fromEntries(Object.entries(details).map(([k, v]) => [k, Buffer.from(v).toString()]))).to.deep.equal({
      'user-0': 'user0',
      'password-0': 'pw0',
      'user-1': 'user1',
      'password-1': 'pw1',
    });
    expect(Object.keys(rsp.desired?.resources ?? {})).to.deep.equal(['accesskey-0', 'accesskey-1']);
  });
});
