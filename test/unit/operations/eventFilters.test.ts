import { expect } from 'chai';
import { ownerOf, specChanged, type OpsEvent } from '../../../src/operations/index.js';

const meta = (generation: number, extra: Record<string, string> = {}) => ({
  metadata: { name: 'op', generation, ...extra },
});

describe('operations/eventFilters', () => {
  const cases: Record<string, { event: OpsEvent; want: boolean }> = {
    'a creation passes': { event: { type: 'add', object: meta(1) }, want: true },
    'a deletion passes': { event: { type: 'delete', object: meta(1) }, want: true },
    'a resync does not': { event: { type: 'resync', object: meta(1) }, want: false },
    'a status write does not': { event: { type: 'update', object: meta(1), oldObject: meta(1) }, want: false },
    'a spec change passes': { event: { type: 'update', object: meta(2), oldObject: meta(1) }, want: true },
    'the start of a deletion passes': {
      event: { type: 'update', object: meta(1, { deletionTimestamp: '2026-03-01T10:00:00Z' }), oldObject: meta(1) },
      want: true,
    },
  };
  for (const [reason, { event, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(specChanged(event), reason).to.equal(want);
    });
  }

  it('maps an Operation to the CronOperation or WatchOperation that created it', () => {
    expect(ownerOf({ name: 'a', labels: { 'ops.crossplane.io/cronoperation': 'nightly' } })).to.deep.equal({
      kind: 'CronOperation',
      name: 'nightly',
    });
    expect(ownerOf({ name: 'b', labels: { 'ops.crossplane.io/watchoperation': 'cm' } })).to.deep.equal({
      kind: 'WatchOperation',
      name: 'cm',
    });
    expect(ownerOf({ name: 'c' })).to.equal(undefined);
  });
});
