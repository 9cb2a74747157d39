import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { ensureCrds } from '../../src/kube/index.js';
import type { CronOperation, Operation, WatchOperation } from '../../src/operations/index.js';
import { controlPlane } from './harness.js';

const OPS = '/apis/ops.crossplane.io/v1alpha1';
const template = { spec: { pipeline: [{ step: 'one', functionRef: { name: 'fn' } }] } };

async function refused(request: Promise<unknown>): Promise<string> {
  return request.then(
    () => 'accepted',
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
}

describe('the ops.crossplane.io CRDs on a real API server (integration)', () => {
  before(async () => {
    await ensureCrds(controlPlane().client(), await loadCrds(), { timeoutMs: 30_000 });
  });

  after(async () => {
    const client = controlPlane().client();
    for (const path of ['operations/defaults', 'cronoperations/defaults', 'watchoperations/immutable']) {
      await client.request('DELETE', `${OPS}/${path}`).catch(() => undefined);
    }
  });

  it("defaults an Operation's mode and keeps a step's input as written", async () => {
    const client = controlPlane().client();
    const input = { apiVersion: 'example.org/v1', kind: 'Input', anything: { nested: [1, 'two'] } };
    const body = {
      apiVersion: 'ops.crossplane.io/v1alpha1',
      kind: 'Operation',
      metadata: { name: 'defaults' },
      spec: { pipeline: [{ step: 'one', functionRef: { name: 'fn' }, input }] },
    };
    const op = await client.request<Operation>('POST', `${OPS}/operations`, { body });
    expect(op.spec.mode).to.equal('Pipeline');
    expect(op.spec.pipeline[0]?.input).to.deep.equal(input);
  });

  it("defaults a CronOperation's policy and history limits", async () => {
    const client = controlPlane().client();
    const body = {
      apiVersion: 'ops.crossplane.io/v1alpha1',
      kind: 'CronOperation',
      metadata: { name: 'defaults' },
      spec: { schedule: '@daily', operationTemplate: template },
    };
    const co = await client.request<CronOperation>('POST', `${OPS}/cronoperations`, { body });
    expect(co.spec).to.include({ concurrencyPolicy: 'Allow', successfulHistoryLimit: 3, failedHistoryLimit: 1 });
    expect(co.spec.operationTemplate.spec.mode).to.equal('Pipeline');
  });

  it("refuses a change of a WatchOperation's watched kind", async () => {
    const client = controlPlane().client();
    const body = {
      apiVersion: 'ops.crossplane.io/v1alpha1',
      kind: 'WatchOperation',
      metadata: { name: 'immutable' },
      spec: { watch: { apiVersion: 'v1', kind: 'ConfigMap' }, operationTemplate: template },
    };
    await client.request<WatchOperation>('POST', `${OPS}/watchoperations`, { body });
    const message = await refused(
      client.request('PATCH', `${OPS}/watchoperations/immutable`, {
        body: { spec: { watch: { kind: 'Secret' } } },
        contentType: 'application/merge-patch+json',
      }),
    );
    expect(message).to.include('kind is immutable');
  });

  it('refuses a pipeline without steps', async () => {
    const client = controlPlane().client();
    const body = {
      apiVersion: 'ops.crossplane.io/v1alpha1',
      kind: 'Operation',
      metadata: { name: 'empty' },
      spec: { pipeline: [] },
    };
    expect(await refused(client.request('POST', `${OPS}/operations`, { body }))).to.include('spec.pipeline');
  });
});
