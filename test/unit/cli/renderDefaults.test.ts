import { expect } from 'chai';
import { applyStructuralDefaults, withSchemaDefaults } from '../../../src/cli/renderDefaults.js';
import type { CompositeResourceDefinition, JsonSchema } from '../../../src/definition/index.js';

const SPEC: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cooldown: { type: 'integer', default: 5 },
        enabled: { type: 'boolean', default: true },
        status: { type: 'string' },
        nullableName: { type: 'string', nullable: true, default: 'n' },
        parameters: { type: 'object', properties: { size: { type: 'string', default: 'small' } } },
        withDefault: { type: 'object', default: {}, properties: { tier: { type: 'string', default: 'gold' } } },
        items: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer', default: 80 } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { default: 'x' } } } },
      },
    },
  },
};

describe('cli/renderDefaults applyStructuralDefaults', () => {
  // k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting algorithm.go Default, and the cases of
  // crossplane cmd/crank/render/xrd_test.go TestDefaultValues.
  const cases: Record<string, { reason: string; xr: Record<string, unknown>; want: Record<string, unknown> }> = {
    SetDefaultValues: {
      reason: 'absent properties with a default get it (xrd_test.go SetDefaultValues)',
      xr: { spec: {} },
      want: { spec: { cooldown: 5, enabled: true, nullableName: 'n', withDefault: { tier: 'gold' } } },
    },
    DontOverwriteExistingValues: {
      reason: 'values that are there stay (xrd_test.go DontOverwriteExistingValues)',
      xr: { spec: { cooldown: 10, enabled: false, nullableName: 'm', withDefault: { tier: 'bronze' } } },
      want: { spec: { cooldown: 10, enabled: false, nullableName: 'm', withDefault: { tier: 'bronze' } } },
    },
    NullNotNullable: {
      reason: 'null is replaced by the default unless the property is nullable (algorithm.go isNonNullableNull)',
      xr: { spec: { cooldown: null, nullableName: null, withDefault: {} } },
      want: { spec: { cooldown: 5, enabled: true, nullableName: null, withDefault: { tier: 'gold' } } },
    },
    NoParentCreated: {
      reason: 'a nested default applies only under an object that is there',
      xr: {},
      want: {},
    },
    NestedAndLists: {
      reason: 'defaults reach into present objects, list items and additionalProperties values',
      xr: { spec: { parameters: {}, items: [{}, { port: 8080 }], labels: { a: {} }, withDefault: {} } },
      want: {
        spec: {
          cooldown: 5,
          enabled: true,
          nullableName: 'n',
          parameters: { size: 'small' },
          items: [{ port: 80 }, { port: 8080 }],
          labels: { a: { v: 'x' } },
          withDefault: { tier: 'gold' },
        },
      },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const xr = structuredClone(c.xr);
      applyStructuralDefaults(xr, SPEC);
      expect(xr, c.reason).to.deep.equal(c.want);
    });
  }
});

describe('cli/renderDefaults withSchemaDefaults', () => {
  const xrd = (versions: string[]): CompositeResourceDefinition =>
    ({
      apiVersion: 'apiextensions.crossplane.io/v2',
      kind: 'CompositeResourceDefinition',
      metadata: { name: 'xs.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        defaultCompositionUpdatePolicy: 'Automatic',
        names: { kind: 'X', plural: 'xs' },
        versions: versions.map((name, i) => ({
          name,
          served: true,
          referenceable: i === versions.length - 1,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'string', default: name } } } },
            },
          },
        })),
      },
    }) as unknown as CompositeResourceDefinition;

  it('uses the schema of the version the XR names (xrd_test.go MultipleVersions), with the machinery defaults', () => {
    const xr = { apiVersion: 'example.com/v2', kind: 'X', spec: { crossplane: {} } };
    expect(withSchemaDefaults(xr, xrd(['v1', 'v2']))).to.deep.equal({
      apiVersion: 'example.com/v2',
      kind: 'X',
      // xcrd.ForCompositeResource: compositionUpdatePolicy defaults to the XRD's defaultCompositionUpdatePolicy.
      spec: { size: 'v2', crossplane: { compositionUpdatePolicy: 'Automatic' } },
    });
    expect(xr.spec, 'the input is not changed').to.deep.equal({ crossplane: {} });
  });

  it('fails with upstream text when the XRD lacks the version (xrd_test.go IncorrectAPIVersion)', () => {
    expect(() => withSchemaDefaults({ apiVersion: 'wrong-group/v1', spec: {} }, xrd(['v1']))).to.throw(
      "the specified API version 'wrong-group/v1' does not exist in the XRD",
    );
  });
});
