import { expect } from 'chai';
import { StatusDraft, type Condition } from '../../../src/controller/index.js';

describe('controller/StatusDraft', () => {
  const now = (): Date => new Date('2026-01-01T00:00:00Z');

  it('restamps the conditions it set when the generation moves, and leaves the stored ones alone', () => {
    const stored: Condition = {
      type: 'Custom',
      status: 'True',
      reason: 'Fine',
      observedGeneration: 1,
      lastTransitionTime: 'x',
    };
    const draft = new StatusDraft({ conditions: [stored] }, 1, now);
    draft.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    draft.observeGeneration(2);
    draft.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    const generations = Object.fromEntries(
      (draft.toStatus().conditions ?? []).map((c) => [c.type, c.observedGeneration]),
    );
    expect(generations).to.deep.equal({ Custom: 1, Synced: 2, Ready: 2 });
  });

  it('is unchanged when the stored status already observed the generation a write moved it to', () => {
    const draft = new StatusDraft({}, 1, now);
    draft.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    draft.observeGeneration(2);
    const again = new StatusDraft(draft.toStatus(), 2, now);
    again.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    expect(again.unchanged()).to.equal(true);
  });
});
