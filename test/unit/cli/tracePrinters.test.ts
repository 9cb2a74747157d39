import { expect } from 'chai';
import { goQuote, printDot, printJson, printTable, statusText } from '../../../src/cli/tracePrinters.js';
import type { TraceNode } from '../../../src/cli/traceTree.js';
import { complexTree, node } from './traceFixture.js';

// The expected tables and graph are upstream's printer tests' own (default_test.go, dot_test.go), trailing spaces
// included: compositor's output is meant to be indistinguishable.

const lines = (...rows: string[]): string => rows.map((row) => `${row}\n`).join('');

describe('cli/tracePrinters', () => {
  it('prints the default table as upstream does', () => {
    expect(printTable(complexTree(), false)).to.equal(
      lines(
        'NAME                                                   SYNCED    READY   STATUS',
        'ObjectStorage/test-resource (default)                  True      True    ',
        '└─ XObjectStorage/test-resource-hash                   True      True    ',
        '   ├─ Bucket/test-resource-bucket-hash                 True      True    ',
        '   │  ├─ User/test-resource-child-1-bucket-hash        True      False   SomethingWrongHappened: ...rure magna. Non cillum id nulla. Anim culpa do duis consectetur.',
        '   │  ├─ User/test-resource-child-mid-bucket-hash      False     True    CantSync: Sync error with bucket child mid',
        '   │  └─ User/test-resource-child-2-bucket-hash        True      False   SomethingWrongHappened: Error with bucket child 2',
        '   │     └─ User/test-resource-child-2-1-bucket-hash   True      -       ',
        '   └─ User/test-resource-user-hash                     Unknown   True    ',
      ),
    );
  });

  it('prints the wide table with RESOURCE and whole messages', () => {
    expect(printTable(complexTree(), true)).to.equal(
      lines(
        'NAME                                                   RESOURCE   SYNCED    READY   STATUS',
        'ObjectStorage/test-resource (default)                             True      True    ',
        '└─ XObjectStorage/test-resource-hash                              True      True    ',
        '   ├─ Bucket/test-resource-bucket-hash                 one        True      True    ',
        '   │  ├─ User/test-resource-child-1-bucket-hash        two        True      False   SomethingWrongHappened: Error with bucket child 1: Sint eu mollit tempor ad minim do commodo irure. Magna labore irure magna. Non cillum id nulla. Anim culpa do duis consectetur.',
        '   │  ├─ User/test-resource-child-mid-bucket-hash      three      False     True    CantSync: Sync error with bucket child mid',
        '   │  └─ User/test-resource-child-2-bucket-hash        four       True      False   SomethingWrongHappened: Error with bucket child 2',
        '   │     └─ User/test-resource-child-2-1-bucket-hash              True      -       ',
        '   └─ User/test-resource-user-hash                                Unknown   True    ',
      ),
    );
  });

  describe('STATUS', () => {
    const withAnnotations = (n: TraceNode, annotations: Record<string, string>): TraceNode => ({
      ...n,
      object: { ...n.object, metadata: { ...n.object.metadata, annotations } },
    });
    const cases: Record<string, { reason: string; node: TraceNode; want: string }> = {
      available: {
        reason: 'Synced and Ready True show the Ready reason alone',
        node: node('XApp', 'a', [
          { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' },
          { type: 'Ready', status: 'True', reason: 'Available' },
        ]),
        want: 'Available',
      },
      creating: {
        reason: 'a Ready condition that is not True shows its reason and message',
        node: node('XApp', 'a', [
          { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' },
          { type: 'Ready', status: 'False', reason: 'Creating', message: 'Unready resources: db' },
        ]),
        want: 'Creating: Unready resources: db',
      },
      missing: {
        reason: 'a resource that could not be read shows Error and why, whatever its conditions',
        node: { ...node('ConfigMap', 'gone', []), error: { message: 'configmaps "gone" not found' } },
        want: 'Error: configmaps "gone" not found',
      },
      deleting: {
        reason: 'a resource being deleted shows Deleting',
        node: {
          ...node('XApp', 'a', []),
          object: {
            apiVersion: 'v1',
            kind: 'XApp',
            metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' },
          },
        },
        want: 'Deleting',
      },
      pausedSeen: {
        reason: 'a paused resource whose controller saw the pause shows ReconcilePaused, its message cropped',
        node: withAnnotations(
          node('XApp', 'a', [
            {
              type: 'Synced',
              status: 'False',
              reason: 'ReconcilePaused',
              message: 'Reconciliation (including deletion) is paused via the pause annotation',
            },
          ]),
          { 'crossplane.io/paused': 'true' },
        ),
        want: 'ReconcilePaused: ...iliation (including deletion) is paused via the pause annotation',
      },
      pausedNotYetSeen: {
        reason: 'a paused resource shows the pause even before a controller wrote ReconcilePaused',
        node: withAnnotations(
          node('XApp', 'a', [
            { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' },
            { type: 'Ready', status: 'True', reason: 'Available' },
          ]),
          { 'crossplane.io/paused': 'true' },
        ),
        want: 'ReconcilePaused: ...iliation (including deletion) is paused via the pause annotation',
      },
      noConditions: {
        reason: 'a resource without conditions has an empty STATUS',
        node: node('ConfigMap', 'a', []),
        want: '',
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        expect(statusText(c.node, false), c.reason).to.equal(c.want);
      });
    }
  });

  it('prints the dot graph as upstream does', () => {
    expect(printDot(complexTree())).to.equal(
      [
        'graph  {',
        '\t',
        '\tn1[label="Name: ObjectStorage/test-resource\\nApiVersion: test.cloud/v1alpha1\\nNamespace: default\\nReady: True\\nSynced: True\\n",penwidth="2"];',
        '\tn2[label="Name: XObjectStorage/test-resource-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: True\\nSynced: True\\n",penwidth="2"];',
        '\tn3[label="Name: Bucket/test-resource-bucket-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: True\\nSynced: True\\n",penwidth="2"];',
        '\tn4[label="Name: User/test-resource-user-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: True\\nSynced: Unknown\\n",penwidth="2"];',
        '\tn5[label="Name: User/test-resource-child-1-bucket-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: False\\nSynced: True\\n",penwidth="2"];',
        '\tn6[label="Name: User/test-resource-child-mid-bucket-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: True\\nSynced: False\\n",penwidth="2"];',
        '\tn7[label="Name: User/test-resource-child-2-bucket-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: False\\nSynced: True\\n",penwidth="2"];',
        '\tn8[label="Name: User/test-resource-child-2-1-bucket-hash\\nApiVersion: test.cloud/v1alpha1\\nReady: \\nSynced: True\\n",penwidth="2"];',
        '\tn1--n2;',
        '\tn2--n3;',
        '\tn2--n4;',
        '\tn3--n5;',
        '\tn3--n6;',
        '\tn3--n7;',
        '\tn7--n8;',
        '\t',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('adds the error of a resource that could not be read to its dot label', () => {
    const missing: TraceNode = {
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace: 'team-a' } },
      error: { message: 'configmaps "gone" not found' },
      children: [],
    };
    expect(printDot(missing)).to.equal(
      'graph  {\n\t\n\tn1[label="Name: ConfigMap/gone\\nApiVersion: v1\\nNamespace: team-a\\nReady: \\nSynced: \\nError: configmaps \\"gone\\" not found\\n",penwidth="2"];\n\t\n}\n',
    );
  });

  it('quotes as Go does', () => {
    expect(goQuote('a"b\\c\nd\te\u0001é')).to.equal('"a\\"b\\\\c\\nd\\te\\x01é"');
  });

  it('prints JSON as upstream marshals the tree: sorted object keys, the server Status under ErrStatus', () => {
    const tree: TraceNode = {
      object: {
        kind: 'XApp',
        apiVersion: 'example.org/v1',
        metadata: { namespace: 'team-a', name: 'shop' },
        spec: { crossplane: { resourceRefs: [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'gone' }] } },
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }] },
      },
      children: [
        {
          object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace: 'team-a' } },
          error: {
            message: 'configmaps "gone" not found',
            status: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: 'configmaps "gone" not found',
              reason: 'NotFound',
              details: { name: 'gone', kind: 'configmaps' },
              code: 404,
            },
          },
          children: [],
        },
        {
          object: { apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'a<b>&c' } },
          error: { message: 'no matches for kind "Thing" in version "x/v1"' },
          children: [],
        },
      ],
    };
    const want = {
      object: {
        apiVersion: 'example.org/v1',
        kind: 'XApp',
        metadata: { name: 'shop', namespace: 'team-a' },
        spec: { crossplane: { resourceRefs: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone' }] } },
        status: { conditions: [{ reason: 'Available', status: 'True', type: 'Ready' }] },
      },
      children: [
        {
          object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', namespace: 'team-a' } },
          error: {
            ErrStatus: {
              metadata: {},
              status: 'Failure',
              message: 'configmaps "gone" not found',
              reason: 'NotFound',
              details: { name: 'gone', kind: 'configmaps' },
              code: 404,
            },
          },
        },
        {
          object: { apiVersion: 'x/v1', kind: 'Thing', metadata: { name: 'a<b>&c' } },
          error: {
            ErrStatus: { metadata: {}, status: 'Failure', message: 'no matches for kind "Thing" in version "x/v1"' },
          },
        },
      ],
    };
    const text = printJson(tree);
    expect(text).to.equal(`${JSON.stringify(want, null, 2).replace('a<b>&c', 'a\\u003cb\\u003e\\u0026c')}\n`);
    expect(JSON.parse(text)).to.deep.equal(want);
  });
});
