// CEL health checks on hostile expressions and objects: each ends quickly with a result or a clear error.
import { expect } from 'chai';
import { celReadiness } from '../../../../../src/functions/builtin/autoready/cel.js';
import { MAX_EXPRESSION_LENGTH } from '../../../../../src/functions/builtin/autoready/celBounds.js';
import { LimitError } from '../../../../../src/functions/builtin/limits.js';
import { GoRegexpError } from '../../../../../src/functions/builtin/re2.js';
import type { JsonObject } from '../../../../../src/functions/types.js';

const object: JsonObject = {
  apiVersion: 'example.org/v1',
  kind: 'X',
  status: { text: `${'a'.repeat(9_999)}b`, conditions: [{ type: 'Ready', status: 'True' }] },
  spec: { list: Array.from({ length: 3000 }, (_, i) => i) },
};

/** The error celReadiness throws, or undefined. */
function failure(expression: string): Error | undefined {
  try {
    celReadiness(expression, object);
  } catch (err) {
    return err as Error;
  }
  return undefined;
}

describe('functions/builtin/autoready/cel: bounds', () => {
  it('matches on RE2: ^(a+)+$ over 10,000 characters ends at once', () => {
    const start = performance.now();
    expect(celReadiness("object.status.text.matches('^(a+)+$')", object)).to.equal('READY_FALSE');
    expect(performance.now() - start).to.be.below(500);
    expect(celReadiness("object.status.text.matches('b$')", object)).to.equal('READY_TRUE');
  });

  it('finds every matches call, through parentheses and comments', () => {
    const expression = "(object.status.text) // why\n . // and\n matches('b$') && 'x'.matches('^x$')";
    expect(celReadiness(expression, object)).to.equal('READY_TRUE');
  });

  it("says Go's regexp error for a pattern RE2 rejects", () => {
    const err = failure("object.status.text.matches('a(?=b)')");
    expect(err?.message).to.equal(
      'failed to eval the program: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    );
    expect(err?.cause).to.be.instanceOf(GoRegexpError);
  });

  it('refuses an expression longer than MAX_EXPRESSION_LENGTH before parsing it', () => {
    const err = failure(`${'true && '.repeat(MAX_EXPRESSION_LENGTH / 8)}true`);
    expect(err?.message).to.match(/^failed to compile query: expression of \d+ characters is longer than/);
    expect(err?.cause).to.be.instanceOf(LimitError);
  });

  it('refuses nested comprehensions whose estimated cost passes the limit, before evaluating them', () => {
    const list = `[${Array.from({ length: 1000 }, (_, i) => i).join(',')}]`;
    for (const expression of [
      `${list}.all(x, ${list}.all(y, x != y || x == y))`,
      'object.spec.list.all(x, object.spec.list.exists(y, y == x))',
    ]) {
      const start = performance.now();
      const err = failure(expression);
      expect(performance.now() - start, expression.slice(0, 40)).to.be.below(200);
      expect(err?.message).to.match(/^failed to eval the program: estimated cost \d+ exceeds the limit of/);
      expect(err?.cause).to.be.instanceOf(LimitError);
    }
  });

  it('evaluates a single pass over a large list', () => {
    expect(celReadiness('object.spec.list.all(x, x >= 0)', object)).to.equal('READY_TRUE');
  });

  it('refuses deep nesting as a compile error', () => {
    expect(failure(`${'('.repeat(300)}true${')'.repeat(300)}`)?.message).to.match(/^failed to compile query: /);
  });
});
