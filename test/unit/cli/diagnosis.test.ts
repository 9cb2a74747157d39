import { expect } from 'chai';
import { diagnose, type Facts } from '../../../src/cli/index.js';
import type { Condition } from '../../../src/controller/index.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const ok = (type: string, reason: string): Condition => ({ type, status: 'True', reason, observedGeneration: 2 });

function facts(change: (f: Facts) => void = () => undefined): Facts {
  const f: Facts = {
    resource: { kind: 'XApp', name: 'shop', namespace: 'team-a' },
    object: {
      generation: 2,
      annotations: {},
      conditions: [ok('Synced', 'ReconcileSuccess'), ok('Ready', 'Available'), ok('Responsive', 'WatchCircuitClosed')],
      effectivePollInterval: '1m0s',
    },
    lease: {
      namespace: 'crossplane-system',
      name: 'compositor-leader-election',
      holder: 'pod-1',
      renewTime: '2026-11-23T11:59:50.000000Z',
      leaseDurationSeconds: 60,
    },
    xrd: { name: 'xapps.example.org', established: ok('Established', 'WatchingCompositeResource') },
    composed: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'shop-abc', namespace: 'team-a' }],
    warnings: [],
    circuitBreakerCooldownMs: 300_000,
  };
  change(f);
  return f;
}

describe('cli/diagnosis', () => {
  it('calls a healthy XR healthy and lists what it read', () => {
    const d = diagnose(facts(), NOW);
    expect(d.cause).to.equal('XApp team-a/shop is healthy: Synced and Ready');
    expect(d.details).to.include(
      'Leader: pod-1 (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
    );
    expect(d.details).to.include('Effective poll interval: 1m0s');
    expect(d.details).to.include('Composed ConfigMap team-a/shop-abc: Ready unknown');
  });

  it('names the pause annotation first for a paused XR', () => {
    const d = diagnose(
      facts((f) => {
        if (f.object) f.object.annotations['crossplane.io/paused'] = 'true';
      }),
      NOW,
    );
    expect(d.cause).to.equal('XApp team-a/shop is paused by the crossplane.io/paused annotation');
  });

  it('says when an open circuit closes', () => {
    const d = diagnose(
      facts((f) => {
        f.object?.conditions.splice(2, 1, {
          type: 'Responsive',
          status: 'False',
          reason: 'WatchCircuitOpen',
          message: 'Too many watch events from ConfigMap/shop-abc (team-a). Allowing events periodically.',
          lastTransitionTime: '2026-11-23T11:58:00Z',
        });
      }),
      NOW,
    );
    expect(d.cause).to.equal(
      'The watch circuit breaker of XApp team-a/shop is open until 2026-11-23T12:03:00.000Z: Too many watch events from ConfigMap/shop-abc (team-a). Allowing events periodically.',
    );
  });

  it('quotes the reconcile error when a Function is missing', () => {
    const message =
      'cannot compose resources: Function "function-nowhere" not found: install it with a pkg.crossplane.io Function';
    const d = diagnose(
      facts((f) => {
        f.object?.conditions.splice(0, 1, {
          type: 'Synced',
          status: 'False',
          reason: 'ReconcileError',
          message,
          observedGeneration: 2,
        });
      }),
      NOW,
    );
    expect(d.cause).to.equal(`XApp team-a/shop fails to reconcile: ${message}`);
  });

  it('says no compositor is reconciling when no lease is live and the generation was never observed', () => {
    const d = diagnose(
      facts((f) => {
        f.lease = undefined;
        if (f.object) f.object.conditions = [];
      }),
      NOW,
    );
    expect(d.cause).to.equal(
      'No compositor is reconciling XApp team-a/shop: no live leader lease and generation 2 was never observed',
    );
    expect(d.details[0]).to.match(/^Leader: no compositor-leader-election lease/);
  });

  it('does not blame a missing lease when compositor runs without leader election and keeps up', () => {
    const d = diagnose(
      facts((f) => {
        f.lease = undefined;
      }),
      NOW,
    );
    expect(d.cause).to.equal('XApp team-a/shop is healthy: Synced and Ready');
  });

  it('says the lease could not be read, instead of that no compositor runs, when it cannot tell', () => {
    const unread = 'cannot read lease crossplane-system/compositor-leader-election: forbidden';
    const observed = diagnose(
      facts((f) => {
        f.lease = undefined;
        f.leaseError = unread;
      }),
      NOW,
    );
    expect(observed.cause).to.equal('XApp team-a/shop is healthy: Synced and Ready');
    expect(observed.details[0]).to.equal(`Leader: ${unread}`);
    const unobserved = diagnose(
      facts((f) => {
        f.lease = undefined;
        f.leaseError = unread;
        if (f.object) f.object.conditions = [];
      }),
      NOW,
    );
    expect(unobserved.cause).to.equal(
      `XApp team-a/shop: generation 2 was never observed, and the leader lease cannot be read: ${unread}`,
    );
  });

  it('says the Events could not be listed, after the rest', () => {
    const d = diagnose(
      facts((f) => {
        f.warningsError = 'cannot list Events: forbidden';
      }),
      NOW,
    );
    expect(d.cause).to.equal('XApp team-a/shop is healthy: Synced and Ready');
    expect(d.details.at(-1)).to.equal('cannot list Events: forbidden');
  });

  describe('an Operation', () => {
    const interrupted = 'a run started but did not record its end';
    const operation = (conditions: Condition[]): Facts =>
      facts((f) => {
        f.resource = { group: 'ops.crossplane.io', kind: 'Operation', name: 'rotate' };
        f.xrd = undefined;
        f.composed = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'keys', namespace: 'default', ready: 'missing' }];
        if (f.object) f.object.conditions = [ok('Synced', 'ReconcileSuccess'), ...conditions];
      });
    const cases: Record<string, { conditions: Condition[]; want: string }> = {
      succeeded: {
        conditions: [ok('Succeeded', 'PipelineSuccess')],
        want: 'Operation rotate succeeded: its pipeline ran to completion and does not run again',
      },
      failed: {
        conditions: [{ type: 'Succeeded', status: 'False', reason: 'PipelineError', message: interrupted }],
        want: `Operation rotate failed and does not run again: ${interrupted}`,
      },
      running: {
        conditions: [{ type: 'Succeeded', status: 'Unknown', reason: 'PipelineRunning' }],
        want: 'Operation rotate has not finished: PipelineRunning',
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(`reads "${name}" from Succeeded rather than Ready`, () => {
        expect(diagnose(operation(c.conditions), NOW).cause).to.equal(c.want);
      });
    }

    it('says a failed run that will be retried, and lists what it applied and its own conditions', () => {
      const f = operation([{ type: 'Succeeded', status: 'Unknown', reason: 'PipelineRunning' }]);
      f.object?.conditions.splice(0, 1, {
        type: 'Synced',
        status: 'False',
        reason: 'ReconcileError',
        message: 'boom',
        observedGeneration: 2,
      });
      const d = diagnose(f, NOW);
      expect(d.cause).to.equal('Operation rotate failed a run and will run again: boom');
      expect(d.details).to.include('Applied ConfigMap default/keys: missing');
      expect(d.details).to.include('Succeeded: Unknown (PipelineRunning)');
      expect(d.details.some((line) => line.startsWith('Effective poll interval'))).to.equal(false);
    });
  });
});
