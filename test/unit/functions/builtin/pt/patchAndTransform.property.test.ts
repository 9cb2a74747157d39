// Property: the built-in function-patch-and-transform's RunFunction, given generated compositions (patches of every
// type, with transforms and readiness checks) over generated composites, returns a response within CALL_BOUND_MS
// and never throws. Seed PROPERTY_SEED; 300 runs.
import fc from 'fast-check';
import { patchAndTransform } from '../../../../../src/functions/builtin/pt/patchAndTransform.js';
import type { JsonObject, RunFunctionRequest } from '../../../../../src/functions/types.js';
import { bounded, check, hostileString, jsonObject } from '../bounded.js';

const PATCH_TYPES = [
  'FromCompositeFieldPath',
  'ToCompositeFieldPath',
  'CombineFromComposite',
  'CombineToComposite',
  'FromEnvironmentFieldPath',
  'PatchSet',
  '',
];
const path = fc.oneof(
  fc.constantFrom('spec.list', 'spec.text', 'spec.list[*]', 'spec.list[3]', 'metadata.name', 'spec.x[99999999]'),
  hostileString,
);

const transform = fc.oneof(
  fc.record({
    type: fc.constant('string'),
    string: fc.record({
      type: fc.constant('Regexp'),
      regexp: fc.record({ match: fc.constantFrom('^(a+)+$', '(a*)*b', '[0-9]+', '('), group: fc.nat({ max: 2 }) }),
    }),
  }),
  fc.record({
    type: fc.constant('string'),
    string: fc.record({
      type: fc.constantFrom('Format', 'Join'),
      fmt: fc.constantFrom('%v', '%1000000v', '%999999999d'),
      join: fc.record({ separator: fc.constantFrom(',', 'x'.repeat(1000)) }),
    }),
  }),
  fc.record({
    type: fc.constant('match'),
    match: fc.record({
      patterns: fc.constant([{ type: 'regexp', regexp: '^(a|aa)+$', result: 'hit' }]),
      fallbackValue: fc.constant('miss'),
    }),
  }),
  fc.record({
    type: fc.constant('convert'),
    convert: fc.record({
      toType: fc.constantFrom('object', 'array', 'int64', 'string'),
      format: fc.constantFrom('json', 'none'),
    }),
  }),
  fc.record({ type: fc.constant('math'), math: fc.record({ type: fc.constant('Multiply'), multiply: fc.integer() }) }),
);

const patch = fc.record({
  type: fc.constantFrom(...PATCH_TYPES),
  fromFieldPath: path,
  toFieldPath: path,
  patchSetName: fc.constant('set'),
  combine: fc.record({
    variables: fc.array(fc.record({ fromFieldPath: path }), { maxLength: 3 }),
    strategy: fc.constantFrom('string', 'other'),
    string: fc.record({ fmt: fc.constantFrom('%s-%s', '%1000000s%1000000s%1000000s%1000000s', '%v') }),
  }),
  transforms: fc.array(transform, { maxLength: 2 }),
  policy: fc.record({ fromFieldPath: fc.constantFrom('Optional', 'Required') }),
});

const request: fc.Arbitrary<RunFunctionRequest> = fc
  .tuple(
    fc.array(patch, { maxLength: 4 }),
    jsonObject,
    fc.array(
      fc.record({
        type: fc.constantFrom('MatchString', 'MatchInteger', 'MatchTrue', 'None'),
        fieldPath: path,
        matchString: hostileString,
        matchInteger: fc.integer(),
      }),
      { maxLength: 2 },
    ),
  )
  .map(([patches, fields, readinessChecks]) => ({
    input: {
      apiVersion: 'pt.fn.crossplane.io/v1beta1',
      kind: 'Resources',
      patchSets: [{ name: 'set', patches: patches.filter((p) => p.type !== 'PatchSet') }],
      resources: [{ name: 'r', base: { ...fields, apiVersion: 'v1', kind: 'ConfigMap' }, patches, readinessChecks }],
    } as unknown as JsonObject,
    observed: {
      composite: {
        resource: { ...fields, apiVersion: 'example.org/v1', kind: 'XR', metadata: { name: 'x' } },
      },
      resources: {
        r: { resource: { ...fields, apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r' } } },
      },
    },
  }));

describe('functions/builtin/pt/patchAndTransform: properties', () => {
  it('answers any composition over any composite, without throwing, in bounded time', () => {
    check(request, 300, (req) => {
      bounded(
        'patchAndTransform',
        () => patchAndTransform(req),
        () => false,
      );
    });
  });
});
