// function-auto-ready v0.7.0 (ed7886de) paths, each with the upstream line it comes from: fn.go for the passes and
// texts, cel/resolver.go for CEL, healthchecks/*.go for the kinds. Texts are compared byte for byte because users
// read them in results.
import { expect } from 'chai';
import { autoReady } from '../../../../src/functions/builtin/autoready/autoReady.js';
import { parseNestedKey } from '../../../../src/functions/builtin/autoready/cel.js';
import { parseGoDuration } from '../../../../src/functions/builtin/goduration.js';
import type { JsonObject, RunFunctionRequest, RunFunctionResponse } from '../../../../src/functions/types.js';

const xr: JsonObject = { apiVersion: 'example.org/v1', kind: 'XR', metadata: { name: 'x' } };

function request(observed: JsonObject, extra: Partial<RunFunctionRequest> = {}): RunFunctionRequest {
  return {
    observed: { composite: { resource: xr }, resources: { r: { resource: observed } } },
    desired: { resources: { r: { resource: {} } } },
    ...extra,
  };
}

const ready = (rsp: RunFunctionResponse): string | undefined => rsp.desired?.resources?.r?.ready;
const results = (rsp: RunFunctionResponse): string[] => (rsp.results ?? []).map((r) => `${r.severity} ${r.message}`);

const condition = (type: string, status: string): JsonObject => ({ type, status });
const withConditions = (apiVersion: string, kind: string, ...c: JsonObject[]): JsonObject => ({
  apiVersion,
  kind,
  status: { conditions: c },
});

interface Case {
  reason: string;
  req: RunFunctionRequest;
  cel?: boolean;
  want: { ready?: string; results?: string[]; ttlMs?: number };
}

const cases: Record<string, Case> = {
  // fn.go:46-52 and time.ParseDuration's texts
  TTLInvalid: {
    reason: 'An unparseable ttl is fatal with Go time.ParseDuration text',
    req: request({}, { input: { ttl: 'soon' } }),
    want: { results: ['SEVERITY_FATAL cannot set ttl: time: invalid duration "soon"'] },
  },
  TTLUnknownUnit: {
    reason: 'Days are not a Go duration unit',
    req: request({}, { input: { ttl: '1d' } }),
    want: { results: ['SEVERITY_FATAL cannot set ttl: time: unknown unit "d" in duration "1d"'] },
  },
  TTLMissingUnit: {
    reason: 'A number without a unit is not a duration (except 0)',
    req: request({}, { input: { ttl: '30' } }),
    want: { results: ['SEVERITY_FATAL cannot set ttl: time: missing unit in duration "30"'] },
  },
  // fn.go:52
  TTLSet: {
    reason: 'A valid ttl replaces the default',
    req: request({}, { input: { ttl: '1m30s' } }),
    want: { ttlMs: 90_000 },
  },
  // fn.go:156-178, healthchecks/deployment.go:28-38
  DeploymentFailingCheckFallsBackToReady: {
    reason: 'A failing health check leaves the resource to the Ready condition pass',
    req: request({ ...withConditions('apps/v1', 'Deployment', condition('Ready', 'True')), spec: { replicas: 0 } }),
    want: { ready: 'READY_TRUE' },
  },
  // healthchecks/deployment.go:28-31
  DeploymentMissingUpdatedReplicas: {
    reason: 'A missing status.updatedReplicas is not ready, even with spec.replicas 0',
    req: request({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { replicas: 0 },
      status: { availableReplicas: 0 },
    }),
    want: {},
  },
  // healthchecks/registry.go getInt64Field
  DeploymentFloatReplicasTruncate: {
    reason: 'Numbers are truncated to int64 as getInt64Field does',
    req: request({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { replicas: 2 },
      status: { updatedReplicas: 2.5, availableReplicas: 2, conditions: [condition('Available', 'True')] },
    }),
    want: { ready: 'READY_TRUE' },
  },
  // healthchecks/statefulset.go:44-53
  StatefulSetRevisionsMissing: {
    reason: 'Both revisions must be present strings',
    req: request({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      status: { readyReplicas: 1, currentReplicas: 1 },
    }),
    want: {},
  },
  // healthchecks/daemonset.go:24-27
  DaemonSetCounterMissing: {
    reason: 'Every counter must be present',
    req: request({ apiVersion: 'apps/v1', kind: 'DaemonSet', status: { desiredNumberScheduled: 0 } }),
    want: {},
  },
  // healthchecks/pod.go:31-33 (typed Pod: no API server defaulting)
  PodWithoutRestartPolicy: {
    reason: 'A running Pod with no restartPolicy is not ready through the check',
    req: request({
      ...withConditions('v1', 'Pod', condition('Ready', 'False')),
      spec: {},
      status: { phase: 'Running' },
    }),
    want: {},
  },
  // fn.go:172 GetCondition returns the first condition of a type
  FirstReadyConditionCounts: {
    reason: 'Only the first Ready condition is read',
    req: request(withConditions('example.org/v1', 'Thing', condition('Ready', 'False'), condition('Ready', 'True'))),
    want: {},
  },
  // fn.go:86-100: context entries merged with inline ones, inline winning
  CelContextMergedWithInline: {
    reason: 'The context map supplies kinds the inline map does not name',
    cel: true,
    req: request(withConditions('example.org/v1', 'Thing'), {
      input: {
        celHealthCheckCustomizationFrom: 'checks[health.example]',
        celHealthCheckCustomization: { 'example.org_v1_Other': 'false' },
      },
      context: { checks: { 'health.example': { 'example.org_v1_Thing': 'object.kind == "Thing"' } } },
    }),
    want: { ready: 'READY_TRUE' },
  },
  CelInlineWins: {
    reason: 'An inline entry overrides the context entry for the same kind',
    cel: true,
    req: request(withConditions('example.org/v1', 'Thing'), {
      input: {
        celHealthCheckCustomizationFrom: 'checks',
        celHealthCheckCustomization: { 'example.org_v1_Thing': 'object.kind == "Other"' },
      },
      context: { checks: { 'example.org_v1_Thing': 'true' } },
    }),
    want: { ready: 'READY_FALSE' },
  },
  // cel/resolver.go:49-51 wraps a nil error: a non-bool expression is silently unspecified
  CelNonBoolFallsThrough: {
    reason: 'A dyn-typed expression decides nothing and raises no warning',
    cel: true,
    req: request(withConditions('example.org/v1', 'Thing', condition('Ready', 'True')), {
      input: { celHealthCheckCustomization: { 'example.org_v1_Thing': 'object.status.ready' } },
    }),
    want: { ready: 'READY_TRUE', results: [] },
  },
  // cel/resolver.go:44-47, fn.go:124
  CelCompileError: {
    reason: 'A compile error is a warning whose text starts as the resolver wraps it',
    cel: true,
    req: request(withConditions('example.org/v1', 'Thing'), {
      input: { celHealthCheckCustomization: { 'example.org_v1_Thing': 'object.kind ==' } },
    }),
    want: {},
  },
  // cel/resolver.go:72-75
  CelEvalError: {
    reason: 'A missing key is an evaluation error, reported without the resource name',
    cel: true,
    req: request(withConditions('example.org/v1', 'Thing'), {
      input: { celHealthCheckCustomization: { 'example.org_v1_Thing': 'object.spec.x == 1' } },
    }),
    want: { results: ['SEVERITY_WARNING failed to eval the program: no such key: spec'] },
  },
};

describe('function-auto-ready fidelity', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => {
      const rsp = autoReady({ celHealthChecks: tc.cel === true })(tc.req);
      expect(ready(rsp), tc.reason).to.equal(tc.want.ready);
      if (tc.want.results !== undefined) expect(results(rsp), tc.reason).to.deep.equal(tc.want.results);
      if (tc.want.ttlMs !== undefined) expect(rsp.meta?.ttlMs, tc.reason).to.equal(tc.want.ttlMs);
    });
  }

  // cel/resolver.go:44-47
  it('CelCompileErrorText', () => {
    const rsp = autoReady({ celHealthChecks: true })(cases.CelCompileError?.req ?? {});
    expect(results(rsp)).to.have.length(1);
    expect(results(rsp)[0]).to.match(/^SEVERITY_WARNING failed to compile query: /);
  });

  // fn.go:75, fn.go:182 (SDK Get/SetDesiredComposedResources)
  it('DesiredRoundTrip', () => {
    const rsp = autoReady()({
      desired: { resources: { r: { resource: { kind: 'A' }, connectionDetails: { k: Buffer.from('v') } } } },
    });
    expect(rsp.desired).to.deep.equal({ resources: { r: { resource: { kind: 'A' } } } });
    expect(autoReady()({}).desired).to.deep.equal({ resources: {} });
  });

  // fn.go ParseNestedKey
  it('ParseNestedKey', () => {
    expect(parseNestedKey('a.b[c.d].e')).to.deep.equal(['a', 'b', 'c.d', 'e']);
    expect(parseNestedKey('...')).to.equal(undefined);
  });

  // go/src/time/format.go ParseDuration
  it('ParseGoDuration', () => {
    expect(parseGoDuration('1.5h')).to.equal(5_400_000_000_000n);
    expect(parseGoDuration('-0')).to.equal(0n);
    expect(parseGoDuration('+10µs')).to.equal(10_000n);
    expect(() => parseGoDuration('')).to.throw('time: invalid duration ""');
    expect(() => parseGoDuration('.s')).to.throw('time: invalid duration ".s"');
    expect(() => parseGoDuration('1 s')).to.throw('time: unknown unit " s" in duration "1 s"');
    expect(() => parseGoDuration('9999999999h')).to.throw('time: invalid duration "9999999999h"');
  });
});
