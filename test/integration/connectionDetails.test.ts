import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { NOP_API_VERSION, NOP_KIND } from '../../src/managed/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  functions,
  get,
  PT_FUNCTION,
  startEngine,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// A v2 XR's connection details as Crossplane's docs compose them (docs-connection-details-pt, with the built-in
// nop provider's NopResources standing in for provider-aws-iam's AccessKeys): each composed resource publishes its
// own connection Secret, compositor reads them into observed state, and patch-and-transform composes the XR's
// connection Secret from them.

const GROUP = 'connection.compositor.test';
const NAMESPACE = 'connection-details';

function definition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `useraccesskeys.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'UserAccessKey', plural: 'useraccesskeys' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    writeConnectionSecretToRef: { type: 'object', properties: { name: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function accessKey(index: number): Record<string, unknown> {
  return {
    name: `accesskey-${index}`,
    base: {
      apiVersion: NOP_API_VERSION,
      kind: NOP_KIND,
      spec: {
        forProvider: {
          conditionAfter: [{ time: '0s', conditionType: 'Ready', conditionStatus: 'True' }],
          connectionDetails: [
            { name: 'username', value: `user-${index}` },
            { name: 'password', value: `secret-${index}` },
          ],
        },
        writeConnectionSecretToRef: { name: `accesskey-secret-${index}` },
      },
    },
    connectionDetails: [
      { name: `user-${index}`, type: 'FromConnectionSecretKey', fromConnectionSecretKey: 'username' },
      { name: `password-${index}`, type: 'FromConnectionSecretKey', fromConnectionSecretKey: 'password' },
    ],
    patches: [
      {
        type: 'FromCompositeFieldPath',
        fromFieldPath: 'metadata.name',
        toFieldPath: 'spec.writeConnectionSecretToRef.name',
        transforms: [{ type: 'string', string: { type: 'Format', fmt: `%s-accesskey-secret-${index}` } }],
      },
    ],
  };
}

function composition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: 'useraccesskeys' },
    spec: {
      compositeTypeRef: { apiVersion: `${GROUP}/v1alpha1`, kind: 'UserAccessKey' },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            writeConnectionSecretToRef: {
              patches: [
                {
                  type: 'FromCompositeFieldPath',
                  fromFieldPath: 'spec.writeConnectionSecretToRef.name',
                  toFieldPath: 'name',
                },
              ],
            },
            resources: [accessKey(0), accessKey(1)],
          },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

describe('connection details of a v2 XR (integration)', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine({ enableNopProvider: true });
    for (const fn of functions()) await apply(client, fn);
    await apply(client, definition());
    await apply(client, composition());
    await eventually('XRD Established', async () => {
      const stored = await get<XrObject>(client, definition());
      return condition(stored, 'Established')?.status === 'True' ? true : undefined;
    });
  });

  after(async () => {
    await running.stop();
  });

  it("composes the XR's connection Secret from its composed resources' connection Secrets", async () => {
    const xr = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'UserAccessKey',
      metadata: { name: 'my-keys', namespace: NAMESPACE },
      spec: { writeConnectionSecretToRef: { name: 'my-keys-connection-details' } },
    };
    await apply(client, xr);
    const secret = await eventually(
      'the composed connection Secret with all four keys',
      async () => {
        const found = await get<KubeObject & { type?: string; data?: Record<string, string> }>(client, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'my-keys-connection-details', namespace: NAMESPACE },
        });
        if (Object.keys(found?.data ?? {}).length === 4) return found;
        throw new Error(`Secret data keys: ${JSON.stringify(Object.keys(found?.data ?? {}))}`);
      },
      { timeoutMs: 60_000 },
    );
    const data = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(data).to.deep.equal({
      'user-0': 'user-0',
      'password-0': 'secret-0',
      'user-1': 'user-1',
      'password-1': 'secret-1',
    });
    expect(secret.type).to.equal('connection.crossplane.io/v1alpha1');
    await eventually('the XR Ready', async () => {
      const stored = await get<XrObject>(client, xr);
      return condition(stored, 'Ready')?.status === 'True' ? true : undefined;
    });
  });
});
