import { expect } from 'chai';
import { trimForCache } from '../../../src/watch/trim.js';

describe('watch/trimForCache', () => {
  const object = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }] }, data: { k: 'v' } };

  it('drops metadata.managedFields and keeps everything else', () => {
    expect(trimForCache(object, true)).to.deep.equal({ metadata: { name: 'a' }, data: { k: 'v' } });
  });

  it('keeps the object as it is when trimming is off', () => {
    expect(trimForCache(object, false)).to.equal(object);
  });
});
