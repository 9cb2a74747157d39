// Property: the built-in function-auto-ready's RunFunction, with CEL health checks on, given generated expressions
// (comprehensions, matches, literals, hostile text) over generated observed resources, returns a response within
// CALL_BOUND_MS and never throws. Seed PROPERTY_SEED; 300 runs.
import fc from 'fast-check';
import { autoReady } from '../../../../../src/functions/builtin/autoready/autoReady.js';
import type { RunFunctionRequest } from '../../../../../src/functions/types.js';
import { bounded, check, hostileString, jsonObject } from '../bounded.js';

const KINDS: [string, string][] = [
  ['example.org/v1', 'Thing'],
  ['apps/v1', 'Deployment'],
  ['v1', 'Pod'],
  ['batch/v1', 'Job'],
  ['v1', 'Service'],
];

const list = fc.nat({ max: 1000 }).map((n) => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`);

/** CEL expressions: comprehensions nested over the object's lists and literals, matches, and arbitrary text. */
const expression: fc.Arbitrary<string> = fc.oneof(
  fc.letrec<{ e: string }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(
        'true',
        'object.status.ready == true',
        "object.spec.text.matches('^(a+)+$')",
        'has(object.spec)',
        'size(object.spec.list) > 0',
      ),
      fc
        .tuple(
          fc.constantFrom('object.spec.list', 'object.status.conditions'),
          fc.constantFrom('all', 'exists', 'exists_one'),
          tie('e'),
        )
        .map(([r, m, e]) => `${r}.${m}(x, ${e})`),
      fc.tuple(list, tie('e')).map(([l, e]) => `${l}.all(y, ${e})`),
      fc.tuple(tie('e'), tie('e')).map(([a, b]) => `(${a}) && (${b})`),
      fc.constantFrom("object.spec.text.split('').all(c, c != 'z')", `${'('.repeat(300)}true${')'.repeat(300)}`),
    ),
  })).e,
  hostileString,
  fc.nat({ max: 20_000 }).map((n) => `${'true && '.repeat(n)}true`),
);

const request: fc.Arbitrary<RunFunctionRequest> = fc
  .tuple(fc.constantFrom(...KINDS), jsonObject, expression)
  .map(([[apiVersion, kind], fields, cel]) => {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
    const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
    const observed = {
      ...fields,
      apiVersion,
      kind,
      metadata: { name: 'r' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    return {
      input: { celHealthCheckCustomization: { [`${group}_${version}_${kind}`]: cel } },
      desired: { resources: { r: { resource: { apiVersion, kind } } } },
      observed: { resources: { r: { resource: observed } } },
    };
  });

describe('functions/builtin/autoready/autoReady: properties', () => {
  const run = autoReady({ celHealthChecks: true });
  it('answers any CEL health check over any observed resource, without throwing, in bounded time', () => {
    check(request, 300, (req) => {
      bounded(
        'autoReady',
        () => run(req),
        () => false,
      );
    });
  });
});
