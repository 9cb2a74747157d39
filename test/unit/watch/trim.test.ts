import { expect } from 'chai';
import { cacheTrimEnabled, trimForCache } from '../../../src/watch/trim.js';

describe('watch/trimForCache', () => {
  const object = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }] }, data: { k: 'v' } };

  it('drops metadata.managedFields and keeps everything else', () => {
    expect(trimForCache(object, true)).to.deep.equal({ metadata: { name: 'a' }, data: { k: 'v' } });
  });

  it('keeps the object as it is when trimming is off', () => {
    expect(trimForCache(object, false)).to.equal(object);
  });

  const cases: Record<string, { reason: string; env: NodeJS.ProcessEnv; want: boolean }> = {
    unset: { reason: 'trimming is the default', env: {}, want: true },
    false: { reason: 'the benchmark switch turns it off', env: { COMPOSITOR_CACHE_TRIM: 'false' }, want: false },
    true: { reason: 'any other value leaves it on', env: { COMPOSITOR_CACHE_TRIM: 'true' }, want: true },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`COMPOSITOR_CACHE_TRIM ${name}: ${c.reason}`, () => {
      expect(cacheTrimEnabled(c.env), c.reason).to.equal(c.want);
    });
  }
});
