import { expect } from 'chai';
import { renderClaimCrd } from '../../../src/definition/claimRender.js';
import { renderXrCrd, type CompositeResourceDefinition } from '../../../src/definition/index.js';

// Expected CRDs written out from Crossplane v2.3's generator (its xcrd ForCompositeResource and
// ForCompositeResourceClaim and their tests): the same objects, plus compositor's two XR status fields.

const USER_SCHEMA = {
  type: 'object',
  description: 'What the resource is for.',
  required: ['spec'],
  'x-kubernetes-validations': [{ rule: 'has(self.spec)', message: 'spec is required' }],
  properties: {
    metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } },
    spec: {
      type: 'object',
      description: 'Specification of the resource.',
      required: ['storageGB'],
      'x-kubernetes-validations': [{ message: 'Cannot change engine version', rule: 'self.e == oldSelf.e' }],
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
      // Dropped upstream: only the keywords above and properties carry over.
      minProperties: 1,
      properties: {
        storageGB: { type: 'integer', description: 'Pretend this is useful.' },
        a: { type: 'string' },
        b: { type: 'string' },
      },
    },
    status: {
      type: 'object',
      description: 'Status of the resource.',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { phase: { type: 'string' } },
    },
  },
};

function xrd(
  spec: Partial<CompositeResourceDefinition['spec']> = {},
  apiVersion = 'apiextensions.crossplane.io/v1',
): CompositeResourceDefinition {
  return {
    apiVersion,
    kind: 'CompositeResourceDefinition',
    metadata: {
      name: 'coolcomposites.example.org',
      uid: 'you-you-eye-dee',
      labels: { cool: 'very' },
      annotations: { 'example.org/cool': 'very' },
    },
    spec: {
      group: 'example.org',
      names: {
        kind: 'CoolComposite',
        listKind: 'CoolCompositeList',
        plural: 'coolcomposites',
        singular: 'coolcomposite',
      },
      versions: [
        { name: 'v1', served: true, referenceable: true, deprecated: false, schema: { openAPIV3Schema: USER_SCHEMA } },
      ],
      ...spec,
    },
  };
}

const OWNER = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'CompositeResourceDefinition',
  name: 'coolcomposites.example.org',
  uid: 'you-you-eye-dee',
  controller: true,
  blockOwnerDeletion: true,
};

const nameRef = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
const selector = {
  type: 'object',
  required: ['matchLabels'],
  properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
};
const conditions = {
  description: 'Conditions of the resource.',
  type: 'array',
  'x-kubernetes-list-map-keys': ['type'],
  'x-kubernetes-list-type': 'map',
  items: {
    type: 'object',
    required: ['lastTransitionTime', 'reason', 'status', 'type'],
    properties: {
      lastTransitionTime: { type: 'string', format: 'date-time' },
      message: { type: 'string' },
      reason: { type: 'string' },
      status: { type: 'string' },
      type: { type: 'string' },
      observedGeneration: { type: 'integer', format: 'int64' },
    },
  },
};
const legacyStatus = {
  conditions,
  connectionDetails: { type: 'object', properties: { lastPublishedTime: { type: 'string', format: 'date-time' } } },
  claimConditionTypes: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
};
const compositorStatus = {
  effectivePollInterval: {
    type: 'string',
    description: 'The poll interval in force, after crossplane.io/poll-interval and --min-poll-interval.',
  },
  lastHandledReconcileAt: {
    type: 'string',
    description: 'The last crossplane.io/reconcile-requested-at token that was handled.',
  },
};

function refs(namespace: boolean): Record<string, unknown> {
  return {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        name: { type: 'string' },
        ...(namespace ? { namespace: { type: 'string' } } : {}),
        kind: { type: 'string' },
      },
      required: ['apiVersion', 'kind'],
    },
    'x-kubernetes-list-type': 'atomic',
  };
}

function machinery(namespace: boolean, defaultPolicy?: string): Record<string, unknown> {
  return {
    compositionRef: nameRef,
    compositionSelector: selector,
    compositionRevisionRef: nameRef,
    compositionRevisionSelector: selector,
    compositionUpdatePolicy: {
      type: 'string',
      enum: ['Automatic', 'Manual'],
      ...(defaultPolicy ? { default: defaultPolicy } : {}),
    },
    resourceRefs: refs(namespace),
  };
}

/** The root of a version's schema, as upstream builds it from USER_SCHEMA. */
function root(spec: Record<string, unknown>, status: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    required: ['spec'],
    description: 'What the resource is for.',
    'x-kubernetes-validations': [{ rule: 'has(self.spec)', message: 'spec is required' }],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } },
      spec: {
        type: 'object',
        description: 'Specification of the resource.',
        required: ['storageGB'],
        'x-kubernetes-validations': [{ message: 'Cannot change engine version', rule: 'self.e == oldSelf.e' }],
        oneOf: [{ required: ['a'] }, { required: ['b'] }],
        properties: {
          storageGB: { type: 'integer', description: 'Pretend this is useful.' },
          a: { type: 'string' },
          b: { type: 'string' },
          ...spec,
        },
      },
      status: {
        type: 'object',
        description: 'Status of the resource.',
        properties: { phase: { type: 'string' }, ...status },
      },
    },
  };
}

const column = (name: string, jsonPath: string, type = 'string'): Record<string, unknown> => ({
  name,
  type,
  jsonPath,
});

function xrColumns(prefix: string): Record<string, unknown>[] {
  return [
    column('SYNCED', ".status.conditions[?(@.type=='Synced')].status"),
    column('READY', ".status.conditions[?(@.type=='Ready')].status"),
    column('COMPOSITION', `${prefix}.compositionRef.name`),
    { ...column('COMPOSITIONREVISION', `${prefix}.compositionRevisionRef.name`), priority: 1 },
    column('AGE', '.metadata.creationTimestamp', 'date'),
  ];
}

const xrNames = {
  kind: 'CoolComposite',
  listKind: 'CoolCompositeList',
  plural: 'coolcomposites',
  singular: 'coolcomposite',
  categories: ['composite'],
};

describe('definition/render: generated CRDs equal Crossplane v2.3s', () => {
  const cases: Record<string, { reason: string; xrd: CompositeResourceDefinition; want: unknown }> = {
    Namespaced: {
      reason: 'a v2 Namespaced XR has its machinery under spec.crossplane and resourceRefs without a namespace',
      xrd: xrd({ scope: 'Namespaced' }, 'apiextensions.crossplane.io/v2'),
      want: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'coolcomposites.example.org', labels: { cool: 'very' }, ownerReferences: [OWNER] },
        spec: {
          group: 'example.org',
          names: xrNames,
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: root(
                  {
                    crossplane: {
                      type: 'object',
                      description: 'Configures how Crossplane will reconcile this composite resource',
                      properties: machinery(false),
                    },
                  },
                  { conditions, ...compositorStatus },
                ),
              },
              additionalPrinterColumns: xrColumns('.spec.crossplane'),
              subresources: { status: {} },
            },
          ],
        },
      },
    },
    LegacyCluster: {
      reason: 'a v1 XRD without a scope is LegacyCluster: machinery under spec, claim and connection fields',
      xrd: xrd({
        defaultCompositionUpdatePolicy: 'Automatic',
        metadata: { annotations: { a: 'b' }, labels: { x: 'y' } },
      }),
      want: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: {
          name: 'coolcomposites.example.org',
          labels: { cool: 'very', x: 'y' },
          annotations: { a: 'b' },
          ownerReferences: [OWNER],
        },
        spec: {
          group: 'example.org',
          names: xrNames,
          scope: 'Cluster',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: root(
                  {
                    ...machinery(true, 'Automatic'),
                    claimRef: {
                      type: 'object',
                      required: ['apiVersion', 'kind', 'namespace', 'name'],
                      properties: {
                        apiVersion: { type: 'string' },
                        kind: { type: 'string' },
                        namespace: { type: 'string' },
                        name: { type: 'string' },
                      },
                    },
                    writeConnectionSecretToRef: {
                      type: 'object',
                      required: ['name', 'namespace'],
                      properties: { name: { type: 'string' }, namespace: { type: 'string' } },
                    },
                  },
                  { ...legacyStatus, ...compositorStatus },
                ),
              },
              additionalPrinterColumns: xrColumns('.spec'),
              subresources: { status: {} },
            },
          ],
        },
      },
    },
  };
  for (const [name, { reason, xrd: input, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(renderXrCrd(input), reason).to.deep.equal(want);
    });
  }

  it('Cluster XRs reference composed resources with a namespace; deprecation, scale and conversion carry over', () => {
    const crd = renderXrCrd(
      xrd(
        {
          scope: 'Cluster',
          conversion: { strategy: 'None' },
          versions: [
            {
              name: 'v1',
              served: true,
              referenceable: true,
              deprecated: true,
              deprecationWarning: 'use v2',
              subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
              schema: { openAPIV3Schema: {} },
            },
          ],
        },
        'apiextensions.crossplane.io/v2',
      ),
    );
    const [version] = crd.spec.versions as Record<string, unknown>[];
    expect(crd.spec.scope).to.equal('Cluster');
    expect(crd.spec.conversion).to.deep.equal({ strategy: 'None' });
    expect(version).to.include({ deprecated: true, deprecationWarning: 'use v2' });
    expect(version?.subresources).to.deep.equal({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    });
    const schema = version?.schema as { openAPIV3Schema: Record<string, unknown> };
    expect(schema.openAPIV3Schema).to.deep.equal({
      type: 'object',
      required: ['spec'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 63 } } },
        spec: {
          type: 'object',
          properties: {
            crossplane: {
              type: 'object',
              description: 'Configures how Crossplane will reconcile this composite resource',
              properties: machinery(true),
            },
          },
        },
        status: { type: 'object', properties: { conditions, ...compositorStatus } },
      },
    });
  });

  it('a version that is not deprecated says nothing about it, as the API server stores it', () => {
    const [version] = renderXrCrd(xrd()).spec.versions as Record<string, unknown>[];
    expect(version).not.to.have.any.keys('deprecated', 'deprecationWarning');
  });

  it('appends the composite category after the XRD’s own, and writes no labels or annotations it was not given', () => {
    const input = xrd({ names: { kind: 'K', plural: 'ks', categories: ['composite', 'mine'] } });
    input.metadata.labels = undefined;
    const crd = renderXrCrd(input);
    expect((crd.spec.names as { categories: string[] }).categories).to.deep.equal(['composite', 'mine', 'composite']);
    expect(crd.metadata).not.to.have.any.keys('labels', 'annotations');
  });
});

describe('definition/renderClaimCrd: the claim CRD equals Crossplane v2.3s', () => {
  const claimNames = { kind: 'CoolClaim', listKind: 'CoolClaimList', plural: 'coolclaims', singular: 'coolclaim' };

  function claimSpec(defaultDeletePolicy?: string): Record<string, unknown> {
    return {
      compositionRef: nameRef,
      compositionSelector: selector,
      compositionRevisionRef: nameRef,
      compositionRevisionSelector: selector,
      // No default: a claim's update policy is left for its XR to default.
      compositionUpdatePolicy: { type: 'string', enum: ['Automatic', 'Manual'] },
      compositeDeletePolicy: {
        type: 'string',
        enum: ['Background', 'Foreground'],
        ...(defaultDeletePolicy ? { default: defaultDeletePolicy } : {}),
      },
      resourceRef: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name'],
        properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
      },
      writeConnectionSecretToRef: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    };
  }

  function want(defaultDeletePolicy?: string): unknown {
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'coolclaims.example.org', labels: { cool: 'very' }, ownerReferences: [OWNER] },
      spec: {
        group: 'example.org',
        names: { ...claimNames, categories: ['claim'] },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            // Upstream gives claims the LegacyCluster XR status, claimConditionTypes included; not compositor's.
            schema: { openAPIV3Schema: root(claimSpec(defaultDeletePolicy), legacyStatus) },
            additionalPrinterColumns: [
              column('SYNCED', ".status.conditions[?(@.type=='Synced')].status"),
              column('READY', ".status.conditions[?(@.type=='Ready')].status"),
              column('CONNECTION-SECRET', '.spec.writeConnectionSecretToRef.name'),
              column('AGE', '.metadata.creationTimestamp', 'date'),
            ],
            subresources: { status: {} },
          },
        ],
      },
    };
  }

  const cases: Record<string, { reason: string; policy?: string; updatePolicy?: 'Automatic' | 'Manual' }> = {
    CompositeDeletePolicyUnspecified: { reason: 'no default delete policy on the XRD: none on the claim' },
    CompositeDeletePolicySet: {
      reason: "the XRD's default delete policy becomes the claim's default; its update policy does not",
      policy: 'Background',
      updatePolicy: 'Manual',
    },
  };
  for (const [name, { reason, policy, updatePolicy }] of Object.entries(cases)) {
    it(name, () => {
      const input = xrd({
        claimNames,
        ...(policy ? { defaultCompositeDeletePolicy: policy } : {}),
        ...(updatePolicy ? { defaultCompositionUpdatePolicy: updatePolicy } : {}),
      });
      expect(renderClaimCrd(input, claimNames), reason).to.deep.equal(want(policy));
    });
  }

  it('caps metadata.name at 63 when the XRD’s schema says nothing stricter', () => {
    const input = xrd({ claimNames });
    const [version] = input.spec.versions;
    if (version) version.schema = { openAPIV3Schema: { type: 'object' } };
    const [rendered] = renderClaimCrd(input, claimNames).spec.versions as {
      schema: { openAPIV3Schema: { properties: { metadata: unknown } } };
    }[];
    expect(rendered?.schema.openAPIV3Schema.properties.metadata).to.deep.equal({
      type: 'object',
      properties: { name: { type: 'string', maxLength: 63 } },
    });
  });
});
