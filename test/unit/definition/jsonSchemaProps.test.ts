import { expect } from 'chai';
import { asJsonSchemaProps } from '../../../src/definition/jsonSchemaProps.js';

describe('definition/asJsonSchemaProps', () => {
  it("drops keys JSONSchemaProps does not declare, at every depth, as Crossplane's unmarshalling does", () => {
    const schema = {
      type: 'object',
      properties: {
        wait: { type: 'boolean', decription: 'a typo upstream ships in configuration-app' },
        list: { type: 'array', items: { type: 'string', unknown: 1 } },
        either: { oneOf: [{ required: ['a'], extra: true }] },
        map: { type: 'object', additionalProperties: { type: 'string', nope: 'x' } },
      },
    };
    expect(asJsonSchemaProps(schema)).to.deep.equal({
      type: 'object',
      properties: {
        wait: { type: 'boolean' },
        list: { type: 'array', items: { type: 'string' } },
        either: { oneOf: [{ required: ['a'] }] },
        map: { type: 'object', additionalProperties: { type: 'string' } },
      },
    });
  });

  it('keeps values whole: a default or enum member with any keys is data, not a schema', () => {
    const schema = {
      type: 'object',
      default: { anything: { decription: 1 } },
      enum: [{ x: 1 }],
      additionalProperties: true,
    };
    expect(asJsonSchemaProps(schema)).to.deep.equal(schema);
  });
});
