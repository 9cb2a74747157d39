import { expect } from 'chai';
import { OPERATION_STUCK_AFTER_MS, problemOf, type ProblemOperation } from '../../../src/cli/problemOperations.js';
import type { Condition } from '../../../src/controller/index.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();

function op(conditions: Condition[], createdMsAgo: number, deleting = false): Parameters<typeof problemOf>[0] {
  return {
    metadata: {
      name: 'rotate',
      creationTimestamp: ago(createdMsAgo),
      ...(deleting ? { deletionTimestamp: ago(0) } : {}),
    },
    status: { conditions },
  };
}

const running: Condition = { type: 'Succeeded', status: 'Unknown', reason: 'PipelineRunning' };
const late = OPERATION_STUCK_AFTER_MS + 60_000;

describe('cli/problemOperations', () => {
  const cases: Record<string, { reason: string; op: Parameters<typeof problemOf>[0]; want?: ProblemOperation }> = {
    succeeded: {
      reason: 'a succeeded Operation is no problem, however old',
      op: op([{ type: 'Succeeded', status: 'True', reason: 'PipelineSuccess' }], late),
    },
    failed: {
      reason: 'Succeeded False is a failure, timed from its transition, with its message',
      op: op(
        [
          {
            type: 'Succeeded',
            status: 'False',
            reason: 'PipelineError',
            message: 'failure limit of 5 reached',
            lastTransitionTime: ago(30_000),
          },
        ],
        late,
      ),
      want: {
        name: 'rotate',
        state: 'failed',
        condition: 'Succeeded',
        reason: 'PipelineError',
        message: 'failure limit of 5 reached',
        forSeconds: 30,
      },
    },
    young: {
      reason: 'an Operation running for less than the limit is not stuck',
      op: op([running], OPERATION_STUCK_AFTER_MS - 1_000),
    },
    stuck: {
      reason: 'past the limit it is stuck, and Synced False says why',
      op: op([{ type: 'Synced', status: 'False', reason: 'ReconcileError', message: 'boom' }, running], late),
      want: {
        name: 'rotate',
        state: 'stuck',
        condition: 'Synced',
        reason: 'ReconcileError',
        message: 'boom',
        forSeconds: late / 1000,
      },
    },
    neverReconciled: {
      reason: 'one no controller ever wrote to is stuck too',
      op: op([], late),
      want: {
        name: 'rotate',
        state: 'stuck',
        condition: 'Succeeded',
        reason: 'NeverReconciled',
        message: '',
        forSeconds: late / 1000,
      },
    },
    deleting: { reason: 'one being deleted is no problem', op: op([running], late, true) },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(problemOf(c.op, NOW), c.reason).to.deep.equal(c.want);
    });
  }
});
