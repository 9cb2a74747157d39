// The whole RunFunction of the built-in function-patch-and-transform, as a reconcile calls it, against a pattern
// that takes a backtracking engine exponential time: `^(a+)+$` over 9,999 a's and a b. On RE2 it is linear. Then the
// patterns the input's validation refuses, and the reason each gives.
import { expect } from 'chai';
import { patchAndTransform } from '../../../../../src/functions/builtin/pt/patchAndTransform.js';
import { MAX_PATTERN_LENGTH, MAX_PROGRAM_SIZE } from '../../../../../src/functions/builtin/re2.js';
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

describe('functions/builtin/pt/patchAndTransform: regexps refused by validation', () => {
  const field = 'resources[0].patches[0].transforms[0].match.patterns[0].regexp';
  const cases: Record<string, { reason: string; pattern: string; detail: string }> = {
    'Go rejects it': {
      reason: "upstream's text: Go's regexp has no lookahead",
      pattern: 'a(?=b)',
      detail: 'invalid regexp',
    },
    'longer than compositor compiles': {
      reason: 'Go would compile it; the bound is named so the user knows it is not a syntax error',
      pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1),
      detail: `invalid regexp: regexp of ${MAX_PATTERN_LENGTH + 1} characters is longer than ${MAX_PATTERN_LENGTH}`,
    },
    'a larger program than compositor compiles': {
      reason: 'Go would compile it; the bound is named',
      pattern: 'a{1000}'.repeat(6),
      detail: `invalid regexp: regexp compiles to more than ${MAX_PROGRAM_SIZE} instructions`,
    },
  };
  for (const [name, { reason, pattern, detail }] of Object.entries(cases)) {
    it(`fails the input when ${name}`, () => {
      const transform: Transform = {
        type: 'match',
        match: { patterns: [{ type: 'regexp', regexp: pattern, result: 'matched' }], fallbackValue: 'fallback' },
      };
      const { rsp } = timed(request([transform]));
      const messages = (rsp.results ?? []).map((r) => [r.severity, r.message]);
      const want = `invalid Function input: ${field}: Invalid value: ${JSON.stringify(pattern)}: ${detail}`;
      expect(messages, reason).to.deep.equal([['SEVERITY_FATAL', want]]);
    });
  }
});
