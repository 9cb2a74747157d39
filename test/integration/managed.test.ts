import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import {
  EXTERNAL_CREATE_FAILED_ANNOTATION,
  EXTERNAL_CREATE_PENDING_ANNOTATION,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION,
  EXTERNAL_NAME_ANNOTATION,
  LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION,
  LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION,
  MANAGED_FINALIZER,
  managedControllerName,
  NopExternalSystem,
  PROVIDER_NOP_API_VERSION,
  type NopParameters,
  type NopResource,
} from '../../src/managed/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  ensureNamespace,
  eventsFor,
  get,
  mergePatch,
  occurrences,
  remove,
  type XrObject,
} from './engine.js';
import { nopResource, providerNopResource, READY_AT_ONCE, startNop, type RunningNop } from './nop.js';
import { reconcileLimits } from '../../src/base/index.js';
import { ReconcileLimiter } from '../../src/queue/index.js';

// The managed-resource runtime against a real API server, through the built-in nop provider: the lifecycle, the
// create-pending protocol, deletion policies, managementPolicies, pause, poll intervals, reconcile requests, the
// skip rule, a restart with many settled resources, and provider-nop's cluster-scoped nop.crossplane.io API.

const NAMESPACE = 'managed-test';
/** Cluster-scoped NopResources of this suite, all named with this prefix (other suites may use the kind too). */
const CLUSTER_PREFIX = 'managed-test-';
const RESTART_MRS = Number(process.env.RESTART_MRS ?? 200);

type Stored = NopResource & XrObject;

type Ref = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

async function read(client: KubeClient, name: string): Promise<Stored | undefined> {
  return get<Stored>(client, nopResource(NAMESPACE, name, {}));
}

/** Polls a namespaced NopResource of NAMESPACE until `check` returns something (see untilObject). */
function until<T>(
  client: KubeClient,
  name: string,
  what: string,
  check: (mr: Stored) => T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  return untilObject(client, nopResource(NAMESPACE, name, {}), what, check, timeoutMs);
}

/** Polls an MR of either kind until `check` returns something, and says what the MR looked like on timeout. */
async function untilObject<T>(
  client: KubeClient,
  ref: Ref,
  what: string,
  check: (mr: Stored) => T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const name = ref.metadata.name;
  let last: unknown;
  try {
    return await eventually(
      `${name}: ${what}`,
      async () => {
        const mr = await get<Stored>(client, ref);
        last = {
          metadata: { annotations: mr?.metadata.annotations, finalizers: mr?.metadata.finalizers },
          status: mr?.status,
        };
        return mr ? check(mr) : undefined;
      },
      { timeoutMs, intervalMs: 50 },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n  last seen: ${JSON.stringify(last)}`, { cause: err });
  }
}

const is = (mr: Stored, type: string, status: string, reason?: string): boolean => {
  const c = condition(mr, type);
  return c?.status === status && (reason === undefined || c.reason === reason);
};

describe('managed resources: the nop provider (integration)', function () {
  this.timeout(180_000);
  let running: RunningNop;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startNop(controlPlane().kubeConfig);
  });

  after(async () => {
    // Deleted while the provider runs (their finalizers need it), so no NopResource outlives this suite.
    await deleteAll(client, NAMESPACE);
    await deleteClusterScoped(client, CLUSTER_PREFIX);
    await running.stop();
  });

  it('goes through create -> ready -> update -> delete with the right conditions, annotations and Secret', async () => {
    const name = 'lifecycle';
    const forProvider: NopParameters = {
      fields: { size: 1 },
      connectionDetails: [{ name: 'username', value: 'admin' }],
      conditionAfter: [{ time: '3s', conditionType: 'Ready', conditionStatus: 'True' }],
    };
    const spec = { writeConnectionSecretToRef: { name: 'lifecycle-conn' } };
    await apply(client, nopResource(NAMESPACE, name, forProvider, { spec }));

    // Created, not ready yet: Creating until conditionAfter says Ready.
    const creating = await until(client, name, 'Synced True, Ready False Creating', (mr) =>
      is(mr, 'Synced', 'True', 'ReconcileSuccess') && is(mr, 'Ready', 'False', 'Creating') ? mr : undefined,
    );
    const created = creating.metadata.annotations ?? {};
    expect(created[EXTERNAL_NAME_ANNOTATION]).to.equal(name);
    expect(Date.parse(created[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION] ?? '')).to.be.at.least(
      Date.parse(created[EXTERNAL_CREATE_PENDING_ANNOTATION] ?? 'x'),
    );
    expect(creating.metadata.finalizers).to.include(MANAGED_FINALIZER);
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))?.fields).to.deep.equal({ size: 1 });

    const ready = await until(client, name, 'Ready True Available', (mr) =>
      is(mr, 'Ready', 'True', 'Available') ? mr : undefined,
    );
    expect(ready.status?.atProvider).to.deep.equal({ fields: { size: 1 } });
    expect(ready.status?.effectivePollInterval).to.equal('10m0s');
    expect(condition(ready, 'Ready')).to.include({ observedGeneration: ready.metadata.generation });
    const recorded = await until(client, name, 'the last external reconcile recorded', (mr) => {
      const a = mr.metadata.annotations ?? {};
      return a[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION] ? a : undefined;
    });
    expect(recorded[LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION]).to.equal(String(ready.metadata.generation));

    const secret = await eventually('the connection Secret', () =>
      get<KubeObject & { type: string; data: Record<string, string>; metadata: { ownerReferences: unknown[] } }>(
        client,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'lifecycle-conn', namespace: NAMESPACE } },
      ),
    );
    expect(secret.type).to.equal('connection.crossplane.io/v1alpha1');
    expect(Buffer.from(secret.data.username ?? '', 'base64').toString()).to.equal('admin');
    expect(secret.metadata.ownerReferences).to.deep.include({
      apiVersion: ready.apiVersion,
      kind: 'NopResource',
      name,
      uid: ready.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });

    // Update: a spec change reaches the external system and is recorded under the new generation.
    await apply(client, nopResource(NAMESPACE, name, { ...forProvider, fields: { size: 2 } }, { spec }));
    const updated = await until(client, name, 'atProvider follows the spec', (mr) =>
      (mr.status?.atProvider as { fields?: { size?: number } } | undefined)?.fields?.size === 2 &&
      mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION] === String(mr.metadata.generation)
        ? mr
        : undefined,
    );
    expect(updated.metadata.generation).to.be.greaterThan(ready.metadata.generation ?? 0);
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))?.fields).to.deep.equal({ size: 2 });
    expect(
      occurrences(await eventsFor(client, NAMESPACE, ready.metadata.uid ?? '', 'UpdatedExternalResource')),
    ).to.equal(1);

    // Delete: while Delete fails the MR stays, Ready False Deleting; once it works both are gone.
    await apply(
      client,
      nopResource(NAMESPACE, name, { ...forProvider, fields: { size: 2 }, failDelete: 'locked' }, { spec }),
    );
    await remove(client, nopResource(NAMESPACE, name, {}));
    const deleting = await until(client, name, 'Ready False Deleting, Synced False delete failed', (mr) =>
      is(mr, 'Ready', 'False', 'Deleting') && is(mr, 'Synced', 'False') ? mr : undefined,
    );
    expect(condition(deleting, 'Synced')?.message).to.equal('delete failed: locked');
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))).to.not.equal(undefined);
    await mergePatch(client, deleting, { spec: { forProvider: { failDelete: null } } });
    await eventually('the MR gone', async () => ((await read(client, name)) === undefined ? true : undefined));
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))).to.equal(undefined);
  });

  it("serves provider-nop's cluster-scoped nop.crossplane.io NopResource: Ready after conditionAfter, Secret, clean delete", async () => {
    const name = `${CLUSTER_PREFIX}upstream`;
    const forProvider: NopParameters = {
      // As Crossplane's e2e compositions ask: Ready False at once, Ready True one second later.
      conditionAfter: [
        { time: '0s', conditionType: 'Ready', conditionStatus: 'False' },
        { time: '1s', conditionType: 'Ready', conditionStatus: 'True' },
      ],
      connectionDetails: [{ name: 'password', value: 's3cret' }],
      fields: { tier: 'gold' },
    };
    // A cluster-scoped MR names the Secret's namespace, as provider-nop requires.
    const spec = { writeConnectionSecretToRef: { name: 'upstream-nop-conn', namespace: NAMESPACE } };
    const ref = providerNopResource(name, {});
    const applied = await apply(client, providerNopResource(name, forProvider, { spec }));
    expect(applied.metadata.namespace, 'cluster-scoped').to.equal(undefined);

    const ready = await untilObject(client, ref, 'Ready True Available, Synced True', (mr) =>
      is(mr, 'Ready', 'True', 'Available') && is(mr, 'Synced', 'True', 'ReconcileSuccess') ? mr : undefined,
    );
    const readyAfterMs =
      Date.parse(ready.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '') -
      Date.parse(ready.metadata.creationTimestamp ?? '');
    expect(readyAfterMs, 'Ready True no sooner than conditionAfter says').to.be.at.least(1_000);
    expect(ready.status?.atProvider).to.deep.equal({ fields: { tier: 'gold' } });
    expect(ready.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION]).to.equal(name);
    const withFinalizer = await untilObject(client, ref, 'the managed finalizer', (mr) =>
      mr.metadata.finalizers?.includes(MANAGED_FINALIZER) ? mr : undefined,
    );
    expect(withFinalizer.metadata.finalizers).to.include(MANAGED_FINALIZER);
    // Its own key in the external system: no namespace, so it never meets a namespaced NopResource of that name.
    expect(running.system.get(NopExternalSystem.key(undefined, name))?.fields).to.deep.equal({ tier: 'gold' });
    const controllers = running.provider.started().map((controller) => controller.name);
    expect(controllers).to.include(managedControllerName('nopresources', PROVIDER_NOP_API_VERSION));

    const secret = await eventually('the connection Secret in the namespace the MR names', () =>
      get<KubeObject & { data: Record<string, string>; metadata: { ownerReferences: unknown[] } }>(client, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'upstream-nop-conn', namespace: NAMESPACE },
      }),
    );
    expect(Buffer.from(secret.data.password ?? '', 'base64').toString()).to.equal('s3cret');
    expect(secret.metadata.ownerReferences).to.deep.include({
      apiVersion: PROVIDER_NOP_API_VERSION,
      kind: 'NopResource',
      name,
      uid: ready.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });

    // Deleted: the external resource goes first, then the finalizer, then the MR.
    const deletes = await running.externalCalls('delete');
    await remove(client, ref);
    await eventually('the cluster-scoped MR gone', async () =>
      (await get(client, ref)) === undefined ? true : undefined,
    );
    expect(running.system.get(NopExternalSystem.key(undefined, name))).to.equal(undefined);
    expect(await running.externalCalls('delete')).to.be.greaterThan(deletes);
  });

  it('keeps the external object with deletionPolicy Orphan', async () => {
    const name = 'orphan';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE, { spec: { deletionPolicy: 'Orphan' } }));
    await until(client, name, 'Ready', (mr) => (is(mr, 'Ready', 'True') ? mr : undefined));
    const deletesBefore = await running.externalCalls('delete');
    await remove(client, nopResource(NAMESPACE, name, {}));
    await eventually('the MR gone', async () => ((await read(client, name)) === undefined ? true : undefined));
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))).to.not.equal(undefined);
    expect(await running.externalCalls('delete')).to.equal(deletesBefore);
  });

  it('records external-create-failed, retries Create with growing backoff, and succeeds once failCreate is cleared', async () => {
    const name = 'failing-create';
    const creates = (): Promise<number> => running.externalCalls('create');
    const before = await creates();
    await apply(client, nopResource(NAMESPACE, name, { ...READY_AT_ONCE, failCreate: 'quota exceeded' }));
    // Attempt times, seen through the metric: 1 s, 2 s, 4 s apart with the default per-item backoff.
    const attempts: number[] = [];
    await eventually(
      '4 create attempts',
      async () => {
        const count = (await creates()) - before;
        while (attempts.length < count) attempts.push(Date.now());
        return count >= 4 ? true : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] ?? t));
    process.stderr.write(`      create retries: ${gaps.join(', ')} ms apart\n`);
    expect(gaps[1]).to.be.greaterThan((gaps[0] ?? 0) * 1.5);
    expect(gaps[2]).to.be.greaterThan((gaps[1] ?? 0) * 1.5);
    const failed = await read(client, name);
    expect(failed?.metadata.annotations?.[EXTERNAL_CREATE_FAILED_ANNOTATION]).to.be.a('string');
    expect(condition(failed, 'Synced')).to.include({ status: 'False', message: 'create failed: quota exceeded' });
    expect(condition(failed, 'Ready')).to.include({ status: 'False', reason: 'Creating' });
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))).to.equal(undefined);

    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE));
    const ready = await until(client, name, 'Ready after failCreate is cleared', (mr) =>
      is(mr, 'Ready', 'True') && is(mr, 'Synced', 'True') ? mr : undefined,
    );
    const a = ready.metadata.annotations ?? {};
    expect(Date.parse(a[EXTERNAL_CREATE_SUCCEEDED_ANNOTATION] ?? '')).to.be.greaterThan(
      Date.parse(a[EXTERNAL_CREATE_FAILED_ANNOTATION] ?? ''),
    );
  });

  it('refuses to create again when a create was started but its result never recorded', async () => {
    const name = 'incomplete';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE));
    const settled = await until(client, name, 'Ready', (mr) => (is(mr, 'Ready', 'True') ? mr : undefined));
    // As if compositor died between Create and recording its result: pending newer than succeeded.
    const creates = await running.externalCalls('create');
    await mergePatch(client, settled, {
      metadata: { annotations: { [EXTERNAL_CREATE_PENDING_ANNOTATION]: new Date(Date.now() + 1_000).toISOString() } },
    });
    const refused = await until(client, name, 'Synced False naming the annotation', (mr) =>
      is(mr, 'Synced', 'False') ? mr : undefined,
    );
    expect(condition(refused, 'Synced')?.message).to.include(EXTERNAL_CREATE_PENDING_ANNOTATION).and.include('remove');
    expect(condition(refused, 'Ready')).to.include({ status: 'False', reason: 'Creating' });
    expect(await running.externalCalls('create')).to.equal(creates);
    // The user checked the external system and removes the annotation: compositor observes and goes on.
    await mergePatch(client, settled, { metadata: { annotations: { [EXTERNAL_CREATE_PENDING_ANNOTATION]: null } } });
    await until(client, name, 'Synced True again', (mr) =>
      is(mr, 'Synced', 'True') && is(mr, 'Ready', 'True') ? mr : undefined,
    );
    expect(await running.externalCalls('create')).to.equal(creates);
  });

  it('with managementPolicies ["Observe"] never creates: a missing external resource is an error', async () => {
    const name = 'observe-only';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE, { spec: { managementPolicies: ['Observe'] } }));
    const missing = await until(client, name, 'Synced False', (mr) => (is(mr, 'Synced', 'False') ? mr : undefined));
    expect(condition(missing, 'Synced')?.message).to.equal('observe failed: external resource does not exist');
    expect(missing.metadata.finalizers ?? []).to.not.include(MANAGED_FINALIZER);
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))).to.equal(undefined);
    // Something else creates it: now it is observed, and reported, but never changed.
    running.system.set(NopExternalSystem.key(NAMESPACE, name), {
      fields: { owner: 'someone-else' },
      connectionDetails: {},
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    const observed = await until(client, name, 'observed', (mr) => (is(mr, 'Synced', 'True') ? mr : undefined), 30_000);
    expect(observed.status?.atProvider).to.deep.equal({ fields: { owner: 'someone-else' } });
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))?.fields).to.deep.equal({ owner: 'someone-else' });
  });

  it('pauses: Synced False ReconcilePaused and no external call until unpaused', async () => {
    const name = 'paused';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE));
    await until(client, name, 'Ready', (mr) => (is(mr, 'Ready', 'True') ? mr : undefined));
    await apply(
      client,
      nopResource(
        NAMESPACE,
        name,
        { ...READY_AT_ONCE, fields: { v: 2 } },
        { annotations: { 'crossplane.io/paused': 'true' } },
      ),
    );
    await until(client, name, 'ReconcilePaused', (mr) =>
      is(mr, 'Synced', 'False', 'ReconcilePaused') ? mr : undefined,
    );
    const callsPaused = await running.externalCalls();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await running.externalCalls()).to.equal(callsPaused);
    expect(running.system.get(NopExternalSystem.key(NAMESPACE, name))?.fields).to.equal(undefined);
    await apply(
      client,
      nopResource(
        NAMESPACE,
        name,
        { ...READY_AT_ONCE, fields: { v: 2 } },
        { annotations: { 'crossplane.io/paused': 'false' } },
      ),
    );
    await until(client, name, 'synced after unpausing', (mr) => (is(mr, 'Synced', 'True') ? mr : undefined));
    await eventually('the change applied', () =>
      Promise.resolve(
        (running.system.get(NopExternalSystem.key(NAMESPACE, name))?.fields as { v?: number } | undefined)?.v === 2
          ? true
          : undefined,
      ),
    );
  });

  it('leaves the external system alone for label edits and its own echoes (the skip rule)', async () => {
    const name = 'quiet';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE));
    await until(client, name, 'settled and recorded', (mr) =>
      is(mr, 'Ready', 'True') && mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION]
        ? mr
        : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const calls = await running.externalCalls();
    const reconciles = await running.reconciles();
    const writes = await writesOf(running);
    for (let i = 0; i < 5; i++) {
      await mergePatch(client, nopResource(NAMESPACE, name, {}), { metadata: { labels: { touch: String(i) } } });
    }
    await eventually('the label edits reconciled', async () =>
      (await running.reconciles()) >= reconciles + 1 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await running.externalCalls(), 'external calls').to.equal(calls);
    expect(await writesOf(running), 'API writes').to.equal(writes);
  });

  it('honours crossplane.io/poll-interval: observes at each poll, clamps it, warns once about an invalid value', async () => {
    await apply(
      client,
      nopResource(NAMESPACE, 'every-3s', READY_AT_ONCE, { annotations: { 'crossplane.io/poll-interval': '3s' } }),
    );
    await apply(
      client,
      nopResource(NAMESPACE, 'clamped', READY_AT_ONCE, { annotations: { 'crossplane.io/poll-interval': '100ms' } }),
    );
    await apply(
      client,
      nopResource(NAMESPACE, 'invalid', READY_AT_ONCE, { annotations: { 'crossplane.io/poll-interval': 'abc' } }),
    );
    for (const [name, want] of [
      ['every-3s', '3s'],
      ['clamped', '1s'],
      ['invalid', '10m0s'],
    ] as const) {
      await until(client, name, `effectivePollInterval ${want}`, (mr) =>
        mr.status?.effectivePollInterval === want && is(mr, 'Ready', 'True') ? mr : undefined,
      );
    }
    // Drift in the external system is repaired at the next poll, not before: polls 2.7 to 3.3 s apart.
    const key = NopExternalSystem.key(NAMESPACE, 'every-3s');
    const repairs: number[] = [];
    for (let round = 0; round < 3; round++) {
      const held = running.system.get(key);
      if (!held) throw new Error('no external object');
      running.system.set(key, { ...held, fields: { drifted: round } });
      repairs.push(
        await eventually(
          'drift repaired',
          () => Promise.resolve(running.system.get(key)?.fields === undefined ? Date.now() : undefined),
          { timeoutMs: 10_000, intervalMs: 20 },
        ),
      );
    }
    const gaps = repairs.slice(1).map((t, i) => t - (repairs[i] ?? t));
    process.stderr.write(`      poll gaps: ${gaps.join(', ')} ms\n`);
    for (const gap of gaps) expect(gap).to.be.within(2_500, 3_600);

    const invalid = await read(client, 'invalid');
    await mergePatch(client, nopResource(NAMESPACE, 'invalid', {}), { metadata: { labels: { again: 'yes' } } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const warnings = await eventsFor(client, NAMESPACE, invalid?.metadata.uid ?? '', 'InvalidPollInterval');
    expect(warnings.length).to.equal(1);
    expect(occurrences(warnings)).to.equal(1);
  });

  it('handles crossplane.io/reconcile-requested-at once per token, observing the external system', async () => {
    const name = 'requested';
    await apply(client, nopResource(NAMESPACE, name, READY_AT_ONCE));
    const settled = await until(client, name, 'settled and recorded', (mr) =>
      is(mr, 'Ready', 'True') && mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION]
        ? mr
        : undefined,
    );
    const observes = await running.externalCalls('observe');
    const token = '2026-11-23T10:00:00Z';
    await mergePatch(client, settled, { metadata: { annotations: { 'crossplane.io/reconcile-requested-at': token } } });
    await until(client, name, 'lastHandledReconcileAt', (mr) =>
      mr.status?.lastHandledReconcileAt === token ? mr : undefined,
    );
    expect(await running.externalCalls('observe')).to.be.greaterThan(observes);
    const uid = settled.metadata.uid ?? '';
    await eventually('one ReconcileRequestHandled event', async () =>
      occurrences(await eventsFor(client, NAMESPACE, uid, 'ReconcileRequestHandled')) === 1 ? true : undefined,
    );
    // The same token again (another annotation changes) is not a new request.
    await mergePatch(client, settled, { metadata: { annotations: { unrelated: 'touch' } } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(occurrences(await eventsFor(client, NAMESPACE, uid, 'ReconcileRequestHandled'))).to.equal(1);
  });
});

describe('managed resources: restart (integration)', function () {
  this.timeout(600_000);
  const namespace = 'managed-restart';

  it(`after a restart with ${RESTART_MRS} settled NopResources calls the external system for fewer than 5% in 60 s, and reconciles a changed one within 2 s`, async () => {
    const client = controlPlane().client();
    await ensureNamespace(client, namespace);
    const system = new NopExternalSystem();
    const settings = { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 20 };
    let running = await startNop(controlPlane().kubeConfig, { settings, system });
    const names = Array.from({ length: RESTART_MRS }, (_, i) => `r-${i}`);
    try {
      for (let i = 0; i < names.length; i += 50) {
        await Promise.all(names.slice(i, i + 50).map((n) => apply(client, nopResource(namespace, n, READY_AT_ONCE))));
      }
      await eventually(
        `${RESTART_MRS} NopResources settled`,
        async () => {
          const list = await client.request<{ items: Stored[] }>(
            'GET',
            `/apis/nop.compositor.crossplane.io/v1alpha1/namespaces/${namespace}/nopresources`,
          );
          const settled = list.items.filter(
            (mr) => is(mr, 'Ready', 'True') && mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION],
          ).length;
          if (settled >= RESTART_MRS) return true;
          throw new Error(`${settled}/${RESTART_MRS} settled`);
        },
        { timeoutMs: 300_000, intervalMs: 1_000 },
      );
    } finally {
      await running.stop();
    }

    running = await startNop(controlPlane().kubeConfig, { settings, system });
    try {
      const restartedAt = Date.now();
      const changed = nopResource(namespace, 'r-7', { ...READY_AT_ONCE, fields: { changed: true } });
      await apply(client, changed);
      const changedAfter = await eventually(
        'the changed NopResource reconciled',
        () =>
          Promise.resolve(
            (system.get(NopExternalSystem.key(namespace, 'r-7'))?.fields as { changed?: boolean } | undefined)
              ?.changed === true
              ? Date.now() - restartedAt
              : undefined,
          ),
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      const wait = restartedAt + 60_000 - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const calls = await running.externalCalls();
      process.stderr.write(
        `      restart: ${calls} external calls in the first 60 s for ${RESTART_MRS} settled NopResources, changed one after ${changedAfter} ms\n`,
      );
      expect(calls).to.be.below(RESTART_MRS * 0.05);
      expect(changedAfter).to.be.below(2_000);
    } finally {
      await deleteAll(client, namespace);
      await running.stop();
    }
  });
});

/** Deletes every NopResource of a namespace and waits until they are gone (the provider must be running). */
describe('managed resources: skipping the external observe after a restart (integration)', function () {
  this.timeout(300_000);
  const namespace = 'managed-restart-skip';

  it('observes no MR again before its poll interval since its last external reconcile has passed', async () => {
    const client = controlPlane().client();
    await ensureNamespace(client, namespace);
    const system = new NopExternalSystem();
    const poll = { 'crossplane.io/poll-interval': '30s' };
    const names = Array.from({ length: 20 }, (_, i) => `s-${i}`);
    let running = await startNop(controlPlane().kubeConfig, { system });
    const recordOf = (mr: Stored): number =>
      Date.parse(mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION] ?? '');
    const list = async (): Promise<Stored[]> =>
      (
        await client.request<{ items: Stored[] }>(
          'GET',
          `/apis/nop.compositor.crossplane.io/v1alpha1/namespaces/${namespace}/nopresources`,
        )
      ).items;
    let before: Map<string, number>;
    try {
      await Promise.all(
        names.map((n) => apply(client, nopResource(namespace, n, READY_AT_ONCE, { annotations: poll }))),
      );
      before = await eventually('20 NopResources settled and recorded', async () => {
        const items = await list();
        const recorded = items.filter((mr) => is(mr, 'Ready', 'True') && !Number.isNaN(recordOf(mr)));
        return recorded.length === names.length
          ? new Map(recorded.map((mr) => [mr.metadata.name, recordOf(mr)]))
          : undefined;
      });
    } finally {
      await running.stop();
    }
    // The restarted controller planned nothing: the MRs of its first list come back spread over the second poll
    // interval (30 to 60 s), and none is observed before 30 s have passed since its last external reconcile.
    running = await startNop(controlPlane().kubeConfig, { system });
    try {
      const after = await eventually(
        'every NopResource observed again',
        async () => {
          const items = await list();
          const refreshed = items.filter((mr) => recordOf(mr) > (before.get(mr.metadata.name) ?? Infinity));
          if (refreshed.length === names.length)
            return new Map(refreshed.map((mr) => [mr.metadata.name, recordOf(mr)]));
          throw new Error(`${refreshed.length}/${names.length} observed again`);
        },
        { timeoutMs: 90_000, intervalMs: 500 },
      );
      const gaps = names.map((n) => (after.get(n) ?? 0) - (before.get(n) ?? 0));
      process.stderr.write(`      gaps between external reconciles: ${Math.min(...gaps)} to ${Math.max(...gaps)} ms\n`);
      for (const gap of gaps) expect(gap).to.be.at.least(29_000);
      // Once each, plus the next 30 s polls of the earliest ones while the last are still due.
      const observes = await running.externalCalls('observe');
      expect(observes)
        .to.be.at.least(names.length)
        .and.at.most(names.length * 2);
      expect(await running.reconciles()).to.be.at.least(names.length);
    } finally {
      await deleteAll(client, namespace);
      await running.stop();
    }
  });
});

async function deleteAll(client: KubeClient, namespace: string): Promise<void> {
  const path = `/apis/nop.compositor.crossplane.io/v1alpha1/namespaces/${namespace}/nopresources`;
  await client.request('DELETE', path);
  await eventually(
    `the NopResources of ${namespace} gone`,
    async () => {
      const left = (await client.request<{ items: unknown[] }>('GET', path)).items.length;
      if (left === 0) return true;
      throw new Error(`${left} left`);
    },
    { timeoutMs: 120_000, intervalMs: 500 },
  );
}

/** Deletes the cluster-scoped nop.crossplane.io NopResources named `prefix...` and waits until they are gone. */
async function deleteClusterScoped(client: KubeClient, prefix: string): Promise<void> {
  const path = `/apis/${PROVIDER_NOP_API_VERSION}/nopresources`;
  const mine = async (): Promise<string[]> =>
    (await client.request<{ items: Stored[] }>('GET', path)).items
      .map((mr) => mr.metadata.name)
      .filter((name) => name.startsWith(prefix));
  for (const name of await mine()) await remove(client, providerNopResource(name, {}));
  await eventually(
    `the cluster-scoped NopResources ${prefix}* gone`,
    async () => {
      const left = await mine();
      if (left.length === 0) return true;
      throw new Error(`left: ${left.join(', ')}`);
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

async function writesOf(running: RunningNop): Promise<number> {
  const metric = (await running.metrics.registry.getMetricsAsJSON()).find(
    (m) => m.name === 'rest_client_requests_total',
  );
  return (metric?.values ?? [])
    .filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
    .reduce((total, v) => total + v.value, 0);
}
