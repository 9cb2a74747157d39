import { expect } from 'chai';
import { stuckSummary } from '../../../src/composite/index.js';
import type { Xr } from '../../../src/controller/index.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

function xr(
  name: string,
  conditions: { type: string; status: string; reason?: string; at?: string }[],
  extra = {},
): Xr {
  return {
    apiVersion: 'example.org/v1',
    kind: 'XApp',
    metadata: { name, namespace: 'team-a', creationTimestamp: '2026-11-23T11:00:00Z', ...extra },
    status: {
      conditions: conditions.map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason ?? 'Reason',
        lastTransitionTime: c.at ?? '2026-11-23T11:59:00Z',
      })),
    },
  } as Xr;
}

describe('composite/stuck', () => {
  it('counts XRs not Ready and not Synced and orders the stuck ones oldest first', () => {
    const summary = stuckSummary(
      [
        xr('healthy', [
          { type: 'Synced', status: 'True' },
          { type: 'Ready', status: 'True' },
        ]),
        xr('creating', [
          { type: 'Synced', status: 'True' },
          { type: 'Ready', status: 'False', reason: 'Creating', at: '2026-11-23T11:50:00Z' },
        ]),
        xr('failing', [
          { type: 'Synced', status: 'False', reason: 'ReconcileError', at: '2026-11-23T11:30:00Z' },
          { type: 'Ready', status: 'True' },
        ]),
      ],
      NOW,
    );
    expect(summary.unready).to.equal(1);
    expect(summary.unsynced).to.equal(1);
    expect(summary.oldestStuckSeconds).to.equal(1800);
    expect(summary.oldest.map((s) => [s.key, s.condition, s.reason])).to.deep.equal([
      ['team-a/failing', 'Synced', 'ReconcileError'],
      ['team-a/creating', 'Ready', 'Creating'],
    ]);
  });

  it('counts an XR never reconciled as stuck since its creation, and a paused one not at all', () => {
    const summary = stuckSummary(
      [xr('new', []), xr('paused', [], { annotations: { 'crossplane.io/paused': 'true' } })],
      NOW,
    );
    expect(summary.unready).to.equal(2);
    expect(summary.oldest.map((s) => [s.key, s.reason])).to.deep.equal([['team-a/new', 'NoCondition']]);
    expect(summary.oldestStuckSeconds).to.equal(3600);
  });

  it('reports nothing stuck as 0 seconds, and limits the list', () => {
    expect(stuckSummary([], NOW).oldestStuckSeconds).to.equal(0);
    const many = Array.from({ length: 5 }, (_, i) => xr(`x${i}`, []));
    expect(stuckSummary(many, NOW, 2).oldest).to.have.length(2);
  });
});
