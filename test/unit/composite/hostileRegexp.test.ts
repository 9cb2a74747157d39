// A tenant's XR field against a platform's regexp: the whole reconcile, with the built-in patch-and-transform as the
// pipeline's function, stays linear. `^(a+)+$` over 9,999 a's and a b takes a backtracking engine hours; a reconcile
// that took that long would hold Node's one thread for every other XR.
import { expect } from 'chai';
import { builtinFunctions, type FunctionRunner, type JsonObject } from '../../../src/functions/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { revision, World } from './world.js';

const HOSTILE = `${'a'.repeat(9_999)}b`;

/** The revision "app-1" whose one step runs patch-and-transform: spec.text through a match transform into data.out. */
function revisionMatching(pattern: string): KubeObject {
  const base = revision() as KubeObject & { spec: { pipeline: JsonObject[] } };
  const input = {
    apiVersion: 'pt.fn.crossplane.io/v1beta1',
    kind: 'Resources',
    resources: [
      {
        name: 'cm',
        base: { apiVersion: 'v1', kind: 'ConfigMap', data: {} },
        patches: [
          {
            type: 'FromCompositeFieldPath',
            fromFieldPath: 'spec.text',
            toFieldPath: 'data.out',
            transforms: [
              {
                type: 'match',
                match: { patterns: [{ type: 'regexp', regexp: pattern, result: 'matched' }], fallbackValue: 'no' },
              },
            ],
          },
        ],
      },
    ],
  };
  return { ...base, spec: { ...base.spec, pipeline: [{ step: 'compose', functionRef: { name: 'fn' }, input }] } };
}

describe('composite/CompositeReconciler with a hostile regexp input', () => {
  it('reconciles an XR whose 10,000-character field meets ^(a+)+$ in well under a second', async () => {
    const pt = builtinFunctions().get('function-patch-and-transform');
    if (!pt) throw new Error('no built-in function-patch-and-transform');
    const runner: FunctionRunner = { run: async (call) => pt(call.request) };
    const world = new World({ reconciler: { runner } });
    world.revisions.set(revisionMatching('^(a+)+$'));
    world.createXr({ spec: { text: HOSTILE } });
    const started = performance.now();
    await world.reconcile();
    const ms = performance.now() - started;
    const [cm] = world.server.list('v1', 'ConfigMap') as { data?: Record<string, string> }[];
    expect(cm?.data, 'the match fell back: RE2 semantics').to.deep.equal({ out: 'no' });
    expect(ms, `the reconcile took ${ms.toFixed(1)} ms`).to.be.below(1_000);
  });
});
