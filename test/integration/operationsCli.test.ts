import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { runDiagnose, runTrace, type DiagnoseOptions, type TraceOptions } from '../../src/cli/index.js';
import { CONTENT_TYPE, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { apply, remove } from './engine.js';
import { controlPlane, eventually } from './harness.js';

// `compositor trace` and `compositor diagnose` of the ops kinds against a real API server. Both only read, so the objects are written here as
// the ops controllers leave them (status included), without running the controllers: a CronOperation, one Operation
// it created that applied a ConfigMap which exists and one which was deleted since, and one that was interrupted.
const OPS = 'ops.crossplane.io/v1alpha1';
const NS = 'default';
const TIME = '2026-01-01T00:00:00Z';
const INTERRUPTED = 'a run started but did not record its end';

const condition = (type: string, status: string, reason: string, message?: string): Record<string, string> => ({
  type,
  status,
  reason,
  lastTransitionTime: TIME,
  ...(message === undefined ? {} : { message }),
});

function operation(name: string): KubeObject {
  return {
    apiVersion: OPS,
    kind: 'Operation',
    metadata: { name, labels: { 'ops.crossplane.io/cronoperation': 'trace-cron' } },
    spec: { mode: 'Pipeline', pipeline: [{ step: 'write', functionRef: { name: 'unused' } }] },
  };
}

const cron: KubeObject = {
  apiVersion: OPS,
  kind: 'CronOperation',
  metadata: { name: 'trace-cron' },
  spec: { schedule: '@hourly', operationTemplate: { spec: operation('unused').spec } },
};

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS },
});

async function writeStatus(client: KubeClient, object: KubeObject, status: unknown): Promise<void> {
  const plural = `${object.kind.toLowerCase()}s`;
  await client.request('PATCH', `/apis/${OPS}/${plural}/${object.metadata.name}/status`, {
    body: { status },
    contentType: CONTENT_TYPE.mergePatch,
  });
}

async function trace(resource: string, name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const options: TraceOptions = { resource, name, output: 'default', kubeconfig: controlPlane().kubeconfigPath };
  const code = await runTrace(options, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code, ...out };
}

async function diagnose(resource: string, name: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const options: DiagnoseOptions = {
    resource,
    name,
    limit: 100,
    output: 'text',
    kubeconfig: controlPlane().kubeconfigPath,
    leaderElectionNamespace: 'crossplane-system',
    circuitBreakerCooldownMs: 300_000,
  };
  const code = await runDiagnose(options, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code, ...out };
}

describe('compositor trace and diagnose of Operations (integration)', function () {
  this.timeout(60_000);
  let client: KubeClient;
  const objects = [cron, operation('trace-cron-1767225600'), operation('trace-cron-1767229200'), configMap('kept')];

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    // Just installed, a CRD's storage may still be initializing: diagnose lists the XRDs.
    await eventually('the XRD kind listable', () =>
      client.request('GET', '/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions').then(() => true),
    );
    for (const object of objects) await apply(client, object);
    await writeStatus(client, cron, {
      conditions: [condition('Synced', 'True', 'ReconcileSuccess'), condition('Scheduling', 'True', 'ScheduleActive')],
    });
    await writeStatus(client, operation('trace-cron-1767225600'), {
      conditions: [condition('Synced', 'True', 'ReconcileSuccess'), condition('Succeeded', 'True', 'PipelineSuccess')],
      appliedResourceRefs: [
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'kept' },
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'trace-deleted' },
      ],
    });
    await writeStatus(client, operation('trace-cron-1767229200'), {
      conditions: [
        condition('Synced', 'True', 'ReconcileSuccess'),
        condition('Succeeded', 'False', 'PipelineError', INTERRUPTED),
      ],
      failures: 1,
    });
  });

  after(async () => {
    for (const object of objects) await remove(client, object).catch(() => undefined);
  });

  it("prints a CronOperation's Operations and what each applied, with each resource's state", async () => {
    const result = await trace('cronoperation', 'trace-cron');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(
      [
        'NAME                                      SYNCED   READY   STATUS',
        'CronOperation/trace-cron                  True     True    ScheduleActive',
        '├─ Operation/trace-cron-1767225600        True     True    PipelineSuccess',
        '│  ├─ ConfigMap/kept (default)            -        -       ',
        '│  └─ ConfigMap/trace-deleted (default)   -        -       Error: configmaps "trace-deleted" not found',
        `└─ Operation/trace-cron-1767229200        True     False   PipelineError: ${INTERRUPTED}`,
        '',
      ].join('\n'),
    );
  });

  it('prints one Operation by its short name and resource type forms', async () => {
    for (const type of ['operation', 'operations.ops.crossplane.io', 'Operation']) {
      const result = await trace(type, 'trace-cron-1767229200');
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout.split('\n')[1], type).to.match(
        /^Operation\/trace-cron-1767229200 +True +False +PipelineError/,
      );
    }
  });

  it('lists the failed Operation in the overview, and diagnoses one Operation from Succeeded', async () => {
    const overview = await diagnose('', '');
    expect(overview.code, overview.stderr).to.equal(0);
    const lines = overview.stdout.split('\n');
    expect(lines, overview.stdout).to.satisfy((all: string[]) =>
      all.some((line) =>
        /^ {2}Operation trace-cron-1767229200: failed \S+ ago: Succeeded PipelineError: a run started/.test(line),
      ),
    );
    expect(overview.stdout).to.not.include('trace-cron-1767225600');

    const one = await diagnose('operation', 'trace-cron-1767225600');
    expect(one.code, one.stderr).to.equal(0);
    const [cause, ...details] = one.stdout.trimEnd().split('\n');
    expect(cause).to.equal(
      'Operation trace-cron-1767225600 succeeded: its pipeline ran to completion and does not run again',
    );
    expect(details.map((d) => d.trim())).to.include.members([
      'Succeeded: True (PipelineSuccess)',
      'Applied ConfigMap default/kept: Ready unknown',
      'Applied ConfigMap default/trace-deleted: missing',
    ]);
  });
});
