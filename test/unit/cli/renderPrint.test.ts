import { expect } from 'chai';
import type { JsonObject } from '../../../src/functions/index.js';
import { mergeOverride, withStableConditions } from '../../../src/cli/renderPrint.js';

describe('cli/renderPrint mergeOverride (-x, mergo.Merge WithOverride)', () => {
  const cases: Record<string, { reason: string; dst: JsonObject; src: JsonObject; want: JsonObject }> = {
    nested: {
      reason: 'an object merges into a non-empty object; keys only the input has stay',
      dst: { spec: { image: 'a', crossplane: { compositionRef: { name: 'c' } } } },
      src: { spec: { crossplane: { resourceRefs: [] } } },
      want: { spec: { image: 'a', crossplane: { compositionRef: { name: 'c' }, resourceRefs: [] } } },
    },
    arrays: {
      reason: 'arrays replace, an empty one too',
      dst: { status: { conditions: [{ type: 'Old' }], tags: ['a'] } },
      src: { status: { conditions: [{ type: 'Ready' }], tags: [] } },
      want: { status: { conditions: [{ type: 'Ready' }], tags: [] } },
    },
    scalarsAndNull: {
      reason: 'scalars and null replace; an object replaces a scalar and an empty object',
      dst: { a: 'x', b: 1, c: 'scalar', d: {} },
      src: { a: '', b: null, c: { k: 'v' }, d: { k: 'v' } },
      want: { a: '', b: null, c: { k: 'v' }, d: { k: 'v' } },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, () => {
      expect(mergeOverride(structuredClone(c.dst), c.src), c.reason).to.deep.equal(c.want);
    });
  }
});

describe('cli/renderPrint withStableConditions (ReplaceConditionTimestamps)', () => {
  const T = '2024-01-01T00:00:00Z';
  const cases: Record<string, { reason: string; object: JsonObject; want: JsonObject }> = {
    noStatus: {
      reason: 'an object without a status is left alone',
      object: { kind: 'ConfigMap', data: { a: '1' } },
      want: { kind: 'ConfigMap', data: { a: '1' } },
    },
    noConditions: {
      reason: 'a status without conditions gets conditions: null, as SetValue of a nil slice writes',
      object: { status: { atProvider: { id: 'x' } } },
      want: { status: { atProvider: { id: 'x' }, conditions: null } },
    },
    nullStatus: {
      reason: 'a null status reads as an empty one',
      object: { status: null },
      want: { status: { conditions: null } },
    },
    typed: {
      reason: 'unknown fields go, reason stays even when empty, message and observedGeneration only when set',
      object: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-28T06:00:00Z', extra: 'x' },
            { type: 'Synced', status: 'False', reason: 'E', message: 'm', observedGeneration: 3 },
          ],
        },
      },
      want: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', lastTransitionTime: T, reason: '' },
            {
              type: 'Synced',
              status: 'False',
              lastTransitionTime: T,
              reason: 'E',
              message: 'm',
              observedGeneration: 3,
            },
          ],
        },
      },
    },
    malformed: {
      reason: 'a condition the type cannot hold leaves the status as it is, as upstream ignores the error',
      object: { status: { conditions: [{ type: 5 }] } },
      want: { status: { conditions: [{ type: 5 }] } },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, () => {
      expect(withStableConditions(c.object), c.reason).to.deep.equal(c.want);
    });
  }
});
