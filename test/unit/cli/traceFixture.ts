// The tree upstream's trace printer tests print (printer_test.go's complex resource), built as compositor's nodes,
// so that the expected outputs below are upstream's own.
import type { TraceNode, TracedCondition } from '../../../src/cli/traceTree.js';

export function node(
  kind: string,
  name: string,
  conditions: TracedCondition[],
  options: { namespace?: string; resource?: string; children?: TraceNode[] } = {},
): TraceNode {
  const metadata: TraceNode['object']['metadata'] = { name };
  if (options.namespace !== undefined) metadata.namespace = options.namespace;
  if (options.resource !== undefined) {
    metadata.annotations = { 'crossplane.io/composition-resource-name': options.resource };
  }
  return {
    object: { apiVersion: 'test.cloud/v1alpha1', kind, metadata, status: { conditions } },
    children: options.children ?? [],
  };
}

const t = (type: string, reason = '', message?: string): TracedCondition =>
  message === undefined ? { type, status: 'True', reason } : { type, status: 'True', reason, message };
const f = (type: string, reason: string, message: string): TracedCondition => ({
  type,
  status: 'False',
  reason,
  message,
});

export const LONG_MESSAGE =
  'Error with bucket child 1: Sint eu mollit tempor ad minim do commodo irure. Magna labore irure magna. Non cillum id nulla. Anim culpa do duis consectetur.';

export function complexTree(): TraceNode {
  return node('ObjectStorage', 'test-resource', [t('Synced'), t('Ready')], {
    namespace: 'default',
    children: [
      node('XObjectStorage', 'test-resource-hash', [t('Synced'), t('Ready')], {
        children: [
          node('Bucket', 'test-resource-bucket-hash', [t('Synced'), t('Ready')], {
            resource: 'one',
            children: [
              node(
                'User',
                'test-resource-child-1-bucket-hash',
                [t('Synced'), f('Ready', 'SomethingWrongHappened', LONG_MESSAGE)],
                {
                  resource: 'two',
                },
              ),
              node(
                'User',
                'test-resource-child-mid-bucket-hash',
                [f('Synced', 'CantSync', 'Sync error with bucket child mid'), t('Ready', 'AllGood')],
                {
                  resource: 'three',
                },
              ),
              node(
                'User',
                'test-resource-child-2-bucket-hash',
                [t('Synced'), f('Ready', 'SomethingWrongHappened', 'Error with bucket child 2')],
                {
                  resource: 'four',
                  children: [node('User', 'test-resource-child-2-1-bucket-hash', [t('Synced')])],
                },
              ),
            ],
          }),
          node('User', 'test-resource-user-hash', [t('Ready'), { type: 'Synced', status: 'Unknown', reason: '' }]),
        ],
      }),
    ],
  });
}
