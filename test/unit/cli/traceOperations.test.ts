import { expect } from 'chai';
import { printTable } from '../../../src/cli/tracePrinters.js';
import { appliedRefs, ownedOperations, readyConditionType } from '../../../src/cli/traceOperations.js';
import { buildTree, type ObjectRef, type TracedCondition, type TracedObject } from '../../../src/cli/traceTree.js';
import type { ListQuery } from '../../../src/cli/traceOperations.js';

const OPS = 'ops.crossplane.io/v1alpha1';

const c = (type: string, status: string, reason: string, message?: string): TracedCondition =>
  message === undefined ? { type, status, reason } : { type, status, reason, message };

function op(name: string, conditions: TracedCondition[], applied: ObjectRef[], created: string): TracedObject {
  return {
    apiVersion: OPS,
    kind: 'Operation',
    metadata: { name, creationTimestamp: created, labels: { 'ops.crossplane.io/cronoperation': 'rotate' } },
    status: { conditions, appliedResourceRefs: applied },
  };
}

const configMap = (name: string): TracedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

const cron: TracedObject = {
  apiVersion: OPS,
  kind: 'CronOperation',
  metadata: { name: 'rotate' },
  status: { conditions: [c('Synced', 'True', 'ReconcileSuccess'), c('Scheduling', 'True', 'ScheduleActive')] },
};

const interrupted = 'a run started but did not record its end';
const operations = [
  // Listed newest first: the tree shows them oldest first.
  op(
    'rotate-1700000060',
    [c('Synced', 'True', 'ReconcileSuccess'), c('Succeeded', 'False', 'PipelineError', interrupted)],
    [],
    '2023-11-14T22:14:20Z',
  ),
  op(
    'rotate-1700000000',
    [c('Synced', 'True', 'ReconcileSuccess'), c('Succeeded', 'True', 'PipelineSuccess')],
    [
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'present' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'gone' },
    ],
    '2023-11-14T22:13:20Z',
  ),
];

/** An in-memory cluster holding one ConfigMap and the Operations above; anything else is "not found". */
function cluster(): {
  get: (ref: ObjectRef) => Promise<TracedObject>;
  list: (q: ListQuery) => Promise<TracedObject[]>;
} {
  return {
    get: (ref) =>
      ref.kind === 'ConfigMap' && ref.name === 'present'
        ? Promise.resolve(configMap('present'))
        : Promise.reject(new Error(`configmaps "${ref.name}" not found`)),
    list: (q) => {
      const [key, value] = q.labelSelector.split('=');
      return Promise.resolve(
        operations.filter((o) => (o.metadata.labels as Record<string, string>)[key ?? ''] === value),
      );
    },
  };
}

const lines = (...rows: string[]): string => rows.map((row) => `${row}\n`).join('');

describe('cli/traceOperations', () => {
  it("reads an Operation's children from status.appliedResourceRefs, and no other kind's", () => {
    const [withApplied] = operations.slice(1);
    expect(appliedRefs(withApplied ?? cron)).to.have.length(2);
    expect(appliedRefs(cron)).to.equal(undefined);
    expect(appliedRefs({ ...configMap('x'), status: { appliedResourceRefs: [] } })).to.equal(undefined);
  });

  it('finds the Operations of a CronOperation and a WatchOperation by the label naming them', () => {
    expect(ownedOperations(cron)).to.deep.equal({
      apiVersion: OPS,
      kind: 'Operation',
      labelSelector: 'ops.crossplane.io/cronoperation=rotate',
    });
    expect(ownedOperations({ ...cron, kind: 'WatchOperation' })?.labelSelector).to.equal(
      'ops.crossplane.io/watchoperation=rotate',
    );
    expect(ownedOperations(operations[0] ?? cron)).to.equal(undefined);
  });

  it('reads READY from the condition each ops kind has in its place', () => {
    const kinds: Record<string, string> = {
      Operation: 'Succeeded',
      CronOperation: 'Scheduling',
      WatchOperation: 'Watching',
    };
    for (const [kind, want] of Object.entries(kinds))
      expect(readyConditionType({ ...cron, kind }), kind).to.equal(want);
    expect(readyConditionType({ ...cron, apiVersion: 'example.org/v1' })).to.equal('Ready');
  });

  it("traces a CronOperation's Operations, oldest first, and what each applied with its state", async () => {
    const { get, list } = cluster();
    const tree = await buildTree(cron, get, { list });
    expect(printTable(tree, false)).to.equal(
      lines(
        'NAME                                SYNCED   READY   STATUS',
        'CronOperation/rotate                True     True    ScheduleActive',
        '├─ Operation/rotate-1700000000      True     True    PipelineSuccess',
        '│  ├─ ConfigMap/present (default)   -        -       ',
        '│  └─ ConfigMap/gone (default)      -        -       Error: configmaps "gone" not found',
        `└─ Operation/rotate-1700000060      True     False   PipelineError: ${interrupted}`,
      ),
    );
  });

  it('shows no Operations without a lister, and says which owner when listing fails', async () => {
    const { get } = cluster();
    expect((await buildTree(cron, get)).children).to.deep.equal([]);
    const failing = (): Promise<TracedObject[]> => Promise.reject(new Error('forbidden'));
    const err = await buildTree(cron, get, { list: failing }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.equal('cannot list the Operations of CronOperation "rotate": forbidden');
  });
});
