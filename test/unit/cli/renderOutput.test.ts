import { expect } from 'chai';
import { reconcileEvents } from '../../../src/cli/renderEvents.js';
import { isValidComposedName } from '../../../src/composite/index.js';
import { renderComposite, renderDocuments } from '../../../src/cli/renderOutput.js';
import type { PipelineCondition, PipelineEvent, PipelineOutput } from '../../../src/functions/index.js';

function output(parts: Partial<PipelineOutput>): PipelineOutput {
  return {
    desired: {},
    context: undefined,
    events: [],
    conditions: [],
    ttlMs: undefined,
    requirements: {},
    outputs: [],
    ...parts,
  };
}

const condition = (type: string, target: PipelineCondition['target']): PipelineCondition => ({
  type,
  status: 'True',
  reason: 'Available',
  target,
});

const XR = { apiVersion: 'example.org/v1', kind: 'XDatabase', metadata: { name: 'db' } };

describe('cli/renderOutput claimConditionTypes', () => {
  // crossplane-runtime composite.Unstructured SetClaimConditionTypes, called by crossplane
  // internal/controller/apiextensions/composite/reconciler.go handleCommonCompositionResult for each condition
  // targeted at CompositeAndClaim: legacy XRs only; the types the XR has first, new ones appended, no duplicates.
  const conditions = [
    condition('DatabaseReady', 'CompositeAndClaim'),
    condition('InternalSync', 'Composite'),
    condition('BucketReady', 'CompositeAndClaim'),
  ];
  const cases: Record<string, { reason: string; legacy: boolean; observed?: string[]; want: unknown }> = {
    legacy: {
      reason: 'a legacy XR lists the claim condition types in pipeline order',
      legacy: true,
      want: ['DatabaseReady', 'BucketReady'],
    },
    keepsExisting: {
      reason: 'types the XR has stay first; a type seen again is not repeated',
      legacy: true,
      observed: ['BucketReady', 'Old'],
      want: ['BucketReady', 'Old', 'DatabaseReady'],
    },
    modern: {
      reason: 'a v2 XR has no claim, so no claimConditionTypes',
      legacy: false,
      want: undefined,
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const xr = c.observed ? { ...XR, status: { claimConditionTypes: c.observed } } : XR;
      const rendered = renderComposite(xr, output({ conditions }), [], c.legacy);
      expect((rendered.status as Record<string, unknown>).claimConditionTypes, c.reason).to.deep.equal(c.want);
    });
  }
});

describe('cli/renderEvents reconcileEvents', () => {
  const warning: PipelineEvent = {
    type: 'Warning',
    reason: 'ComposeResources',
    message: 'Pipeline step "pt": careful',
    target: 'Composite',
    step: 'pt',
    detail: 'careful',
    severity: 'SEVERITY_WARNING',
  };
  it('records the new selection, the function results, then one event per unready resource', () => {
    // reconciler.go Reconcile: "Successfully composed resources" is only logged; not-yet-ready is an event.
    const events = reconcileEvents({
      fileCompositionRef: 'other',
      compositionName: 'mine',
      out: output({
        events: [warning],
        desired: { resources: { b: {}, a: { ready: 'READY_FALSE' }, c: { ready: 'READY_TRUE' } } },
      }),
    });
    expect(events).to.deep.equal([
      { type: 'Normal', reason: 'SelectComposition', message: 'Successfully selected composition: mine' },
      { type: 'Warning', reason: 'ComposeResources', message: 'Pipeline step "pt": careful' },
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "a" is not yet ready' },
      { type: 'Normal', reason: 'ComposeResources', message: 'Composed resource "b" is not yet ready' },
    ]);
  });
});

describe('composite isValidComposedName', () => {
  // crossplane internal/names/validate.go ValidateName: IsDNS1123Subdomain; RBAC kinds may hold colons (#6689).
  const cases: Record<string, { name: string; apiVersion: string; kind: string; want: boolean }> = {
    subdomain: { name: 'my-app.example-1', apiVersion: 'v1', kind: 'ConfigMap', want: true },
    upper: { name: 'MyApp', apiVersion: 'v1', kind: 'ConfigMap', want: false },
    underscore: { name: 'a_b', apiVersion: 'v1', kind: 'ConfigMap', want: false },
    dashEnd: { name: 'a-', apiVersion: 'v1', kind: 'ConfigMap', want: false },
    empty: { name: '', apiVersion: 'v1', kind: 'ConfigMap', want: false },
    tooLong: { name: 'a'.repeat(254), apiVersion: 'v1', kind: 'ConfigMap', want: false },
    rbacColon: {
      name: 'crossplane:aggregate',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      want: true,
    },
    colonElsewhere: { name: 'a:b', apiVersion: 'v1', kind: 'ConfigMap', want: false },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(isValidComposedName(c.name, c.apiVersion, c.kind)).to.equal(c.want));
  }
});

describe('cli/renderOutput -c Context', () => {
  // crossplane/cli cmd/crossplane/render/contextfn capture: the context the last step hands on, as a Context
  // document; crossplane's composer starts from an empty context and takes each step's, so a step that returns none
  // leaves none, and crank then prints no Context.
  const cases: Record<string, { reason: string; context: PipelineOutput['context']; want: unknown[] }> = {
    empty: { reason: 'an empty context prints empty fields', context: {}, want: [{}] },
    some: { reason: 'the final context is the fields', context: { a: { b: 1 } }, want: [{ a: { b: 1 } }] },
    none: { reason: 'no context from the last step prints no Context', context: undefined, want: [] },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, () => {
      const docs = renderDocuments(XR, output({ context: c.context }), {
        observed: new Map(),
        includeResults: false,
        includeContext: true,
      });
      const contexts = docs.filter((d) => d.kind === 'Context').map((d) => d.fields);
      expect(contexts, c.reason).to.deep.equal(c.want);
    });
  }
});
