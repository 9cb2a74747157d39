import { expect } from 'chai';
import { composedResourceEvents } from '../../../src/composite/resultPublisher.js';

describe('composite/composedResourceEvents', () => {
  it('records not yet valid, then not yet ready, per composed resource by name, with Go %q quoting', () => {
    // crossplane internal/controller/apiextensions/composite/reconciler.go Reconcile: `Composed resource %q is not
    // yet valid` (apply rejected as invalid) and `... is not yet ready`, both Normal ComposeResources.
    expect(composedResourceEvents(['b'], ['c', 'b', 'a"q'])).to.deep.equal([
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "a\\"q" is not yet ready' },
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "b" is not yet valid' },
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "b" is not yet ready' },
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "c" is not yet ready' },
    ]);
    expect(composedResourceEvents([], [])).to.deep.equal([]);
  });
});
