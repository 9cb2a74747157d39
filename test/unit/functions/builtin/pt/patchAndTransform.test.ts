// The whole RunFunction of the built-in function-patch-and-transform, as a reconcile calls it, against a pattern
// that takes a backtracking engine exponential time: `^(a+)+$` over 9,999 a's and a b. On RE2 it is linear.
import { expect } from 'chai';
import { patchAndTransform } from '../../../../../src/functions/builtin/pt/patchAndTransform.js';
import type { Transform } from '../../../../../src/functions/builtin/transforms.js';
import type { JsonObject, RunFunctionRequest } from '../../../../../src/functions/types.js';

const HOSTILE = `${'a'.repeat(9_999)}b`;
const PATTERN = '^(a+)+$';

/** A request that patches spec.name of the XR through transforms into the composed resource's spec.out. */
function request(transforms: Transform[]): RunFunctionRequest {
  return {
    input: {
      apiVersion: 'pt.fn.crossplane.io/v1beta1',
      kind: 'Resources',
      resources: [
        {
          name: 'cm',
          base: { apiVersion: 'v1', kind: 'ConfigMap' },
          patches: [
            {
              type: 'FromCompositeFieldPath',
              fromFieldPath: 'spec.name',
              toFieldPath: 'spec.out',
              transforms: transforms as unknown as JsonObject[],
            },
          ],
        },
      ],
    },
    observed: {
      composite: {
        resource: { apiVersion: 'example.org/v1', kind: 'XR', metadata: { name: 'x' }, spec: { name: HOSTILE } },
      },
    },
  };
}

/** Runs the function once and measures it (performance.now around the synchronous call, no waiting). */
function timed(req: RunFunctionRequest): { rsp: ReturnType<typeof patchAndTransform>; ms: number } {
  const start = performance.now();
  const rsp = patchAndTransform(req);
  return { rsp, ms: performance.now() - start };
}

describe('functions/builtin/pt/patchAndTransform: regexps in linear time', () => {
  it('string transform Regexp: a 10,000-character input against ^(a+)+$ fails to match in well under a second', () => {
    const { rsp, ms } = timed(request([{ type: 'string', string: { type: 'Regexp', regexp: { match: PATTERN } } }]));
    expect(ms, `took ${ms.toFixed(1)} ms`).to.be.below(500);
    const messages = (rsp.results ?? []).map((r) => r.message ?? '');
    expect(messages.join('\n')).to.contain(`regexp "${PATTERN}" had no matches for group 0`);
  });

  it('match transform regexp: the same input falls back in well under a second', () => {
    const transform: Transform = {
      type: 'match',
      match: { patterns: [{ type: 'regexp', regexp: PATTERN, result: 'matched' }], fallbackValue: 'fallback' },
    };
    const { rsp, ms } = timed(request([transform]));
    expect(ms, `took ${ms.toFixed(1)} ms`).to.be.below(500);
    expect(rsp.results ?? []).to.deep.equal([]);
    expect(rsp.desired?.resources?.cm?.resource?.spec).to.deep.equal({ out: 'fallback' });
  });

  it('match transform regexp: the input without its b matches, as Go would say', () => {
    const transform: Transform = {
      type: 'match',
      match: { patterns: [{ type: 'regexp', regexp: PATTERN, result: 'matched' }], fallbackValue: 'fallback' },
    };
    const req = request([transform]);
    const composite = req.observed?.composite?.resource as { spec: { name: string } };
    composite.spec.name = 'a'.repeat(10_000);
    const { rsp, ms } = timed(req);
    expect(ms, `took ${ms.toFixed(1)} ms`).to.be.below(500);
    expect(rsp.desired?.resources?.cm?.resource?.spec).to.deep.equal({ out: 'matched' });
  });
});
