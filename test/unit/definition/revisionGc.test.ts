import { expect } from 'chai';
import { referencedRevision, revisionsToDelete } from '../../../src/definition/revisionGc.js';

const revisions = [1, 2, 3, 4, 5].map((n) => ({ name: `c-${n}`, number: n }));

describe('definition/revisionGc', () => {
  it('deletes what is beyond the newest N, except the current and the referenced revisions', () => {
    const referenced = new Set(['c-1']);
    expect(revisionsToDelete(revisions, { keep: 2, current: 'c-5', referenced })).to.deep.equal(['c-3', 'c-2']);
    // The current revision may be an old one the Composition returned to before it was renumbered.
    expect(revisionsToDelete(revisions, { keep: 2, current: 'c-2', referenced })).to.deep.equal(['c-3']);
  });

  it('deletes nothing within the limit, or when the references are unknown', () => {
    expect(revisionsToDelete(revisions, { keep: 10, current: 'c-5', referenced: new Set() })).to.deep.equal([]);
    expect(revisionsToDelete(revisions, { keep: 1, current: 'c-5', referenced: undefined })).to.deep.equal([]);
  });

  it('reads the revision an XR references from v2 and legacy machinery', () => {
    expect(referencedRevision({ spec: { crossplane: { compositionRevisionRef: { name: 'a' } } } })).to.equal('a');
    expect(referencedRevision({ spec: { compositionRevisionRef: { name: 'b' } } })).to.equal('b');
    expect(referencedRevision({ spec: {} })).to.equal(undefined);
  });
});
