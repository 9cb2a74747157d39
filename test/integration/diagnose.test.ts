import { expect } from 'chai';
import { runDiagnose, type DiagnoseOptions } from '../../src/cli/index.js';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  composition,
  condition,
  ensureNamespace,
  get,
  installApi,
  mergePatch,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// `compositor diagnose` reading a real cluster where the engine composed XRs.
describe('compositor diagnose', function () {
  this.timeout(120_000);
  const NAMESPACE = 'diagnose-test';
  const api = testApi('diagnose.compositor.test', 'XDiag');
  const xr = (name: string): XrObject => ({
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: { image: 'nginx' } as XrObject['spec'],
  });
  let running: RunningEngine;
  let client: KubeClient;

  async function run(
    name: string,
    output: 'text' | 'json' = 'text',
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = { stdout: '', stderr: '' };
    const options: DiagnoseOptions = {
      resource: `${api.plural}.${api.group}`,
      name,
      namespace: NAMESPACE,
      output,
      kubeconfig: controlPlane().kubeconfigPath,
      leaderElectionNamespace: 'crossplane-system',
      circuitBreakerCooldownMs: 300_000,
    };
    const code = await runDiagnose(options, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
    return { code, ...out };
  }

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine();
    await installApi(client, api);
    await apply(client, xr('healthy'));
    await eventually('the XR Ready', async () =>
      condition(await get<XrObject>(client, xr('healthy')), 'Ready')?.status === 'True' ? true : undefined,
    );
  });

  after(async () => {
    await remove(client, xr('healthy'));
    await running.stop();
  });

  it('says a composed XR is healthy, with its composed resource, and prints JSON for scripts', async () => {
    const text = await run('healthy');
    expect(text.code, text.stderr).to.equal(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).to.equal(`XDiag ${NAMESPACE}/healthy is healthy: Synced and Ready`);
    expect(text.stdout).to.match(/Composed ConfigMap diagnose-test\/healthy-[0-9a-f]{12}: Ready unknown/);
    expect(text.stdout).to.include(`XRD ${api.plural}.${api.group}: Established: True (WatchingCompositeResource)`);
    const json = JSON.parse((await run('healthy', 'json')).stdout) as { cause: string; facts: { composed: unknown[] } };
    expect(json.cause).to.equal(lines[0]);
    expect(json.facts.composed).to.have.length(1);
  });

  it('names the pause annotation in the first line of a paused XR', async () => {
    await mergePatch(client, xr('healthy'), { metadata: { annotations: { 'crossplane.io/paused': 'true' } } });
    const paused = await eventually('diagnose to see the pause', async () => {
      const result = await run('healthy');
      return result.stdout.startsWith(`XDiag ${NAMESPACE}/healthy is paused`) ? result : undefined;
    });
    expect(paused.stdout).to.include('Paused: yes');
    await mergePatch(client, xr('healthy'), { metadata: { annotations: { 'crossplane.io/paused': null } } });
  });

  it('quotes the missing Function in the first line', async () => {
    await apply(client, composition(api, 'diagnose-missing-function', { functionName: 'function-nowhere' }));
    const broken = xr('broken');
    (broken.spec as Record<string, unknown>).crossplane = { compositionRef: { name: 'diagnose-missing-function' } };
    await apply(client, broken);
    const result = await eventually('diagnose to report the missing Function', async () => {
      const seen = await run('broken');
      return seen.stdout.startsWith(`XDiag ${NAMESPACE}/broken fails to reconcile:`) ? seen : undefined;
    });
    expect(result.stdout.split('\n')[0]).to.include('Function "function-nowhere" not found');
    expect(result.stdout).to.match(/Warning ComposeResources/);
    await remove(client, broken);
  });

  it('lists the longest-stuck XRs with --stuck and reports them in the per-controller gauges', async () => {
    await apply(client, composition(api, 'diagnose-stuck', { functionName: 'function-gone' }));
    const stuck = xr('stuck');
    (stuck.spec as Record<string, unknown>).crossplane = { compositionRef: { name: 'diagnose-stuck' } };
    await apply(client, stuck);
    const gauge = async (name: string): Promise<number | undefined> => {
      const metric = await running.metrics.registry.getSingleMetric(name)?.get();
      return metric?.values.find((v) => v.labels.controller === api.controller)?.value;
    };
    const unsynced = await eventually('compositor_composite_unsynced to count the stuck XR', async () => {
      const value = await gauge('compositor_composite_unsynced');
      return value !== undefined && value >= 1 ? value : undefined;
    });
    expect(unsynced).to.be.at.least(1);
    expect(await gauge('compositor_composite_stuck_seconds')).to.be.a('number');

    const out = { stdout: '', stderr: '' };
    const code = await runDiagnose(
      {
        resource: '',
        name: '',
        stuck: true,
        limit: 5,
        output: 'json',
        kubeconfig: controlPlane().kubeconfigPath,
        leaderElectionNamespace: 'crossplane-system',
        circuitBreakerCooldownMs: 300_000,
      },
      { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
    );
    expect(code, out.stderr).to.equal(0);
    const listing = JSON.parse(out.stdout) as { total: number; stuck: { kind: string; key: string; reason: string }[] };
    expect(listing.stuck.map((s) => [s.kind, s.key, s.reason])).to.deep.include([
      api.kind,
      `${NAMESPACE}/stuck`,
      'ReconcileError',
    ]);
    expect(listing.stuck.some((s) => s.key === `${NAMESPACE}/healthy`)).to.equal(false);

    // Without arguments (docs/migration.md's first command after installing): the same listing with a limit of
    // 100, so the stuck XR is on it whatever other tests left behind, the leader, and what to run next.
    const overview = { stdout: '', stderr: '' };
    const overviewCode = await runDiagnose(
      {
        resource: '',
        name: '',
        limit: 100,
        output: 'text',
        kubeconfig: controlPlane().kubeconfigPath,
        leaderElectionNamespace: 'crossplane-system',
        circuitBreakerCooldownMs: 300_000,
      },
      { stdout: (t) => (overview.stdout += t), stderr: (t) => (overview.stderr += t) },
    );
    expect(overviewCode, overview.stderr).to.equal(0);
    const lines = overview.stdout.split('\n');
    expect(lines[0], overview.stdout).to.match(/^\d+ XRs? (is|are) not Ready or not Synced; oldest first:$/);
    expect(lines, overview.stdout).to.satisfy((all: string[]) =>
      all.some((line) => line.startsWith(`  ${api.kind} ${NAMESPACE}/stuck: Synced ReconcileError for `)),
    );
    expect(
      lines.some((line) => line.startsWith('Leader: ')),
      overview.stdout,
    ).to.equal(true);
    expect(lines.at(-2), overview.stdout).to.match(/^Next: compositor diagnose \S+ \S+( -n \S+)?$/);
    await remove(client, stuck);
  });

  it('says no compositor is reconciling an XR created while none runs', async () => {
    await running.stop();
    try {
      await apply(client, xr('orphan'));
      const result = await run('orphan');
      expect(result.stdout.split('\n')[0]).to.equal(
        `No compositor is reconciling XDiag ${NAMESPACE}/orphan: no live leader lease and generation 1 was never observed`,
      );
    } finally {
      running = await startEngine();
    }
    await remove(client, xr('orphan'));
  });

  it('says when the resource does not exist, and fails with one line for an unknown type', async () => {
    expect((await run('nowhere')).stdout.split('\n')[0]).to.equal(`XDiag ${NAMESPACE}/nowhere does not exist`);
    const out = { stdout: '', stderr: '' };
    const code = await runDiagnose(
      {
        resource: 'unicorns',
        name: 'x',
        output: 'text',
        kubeconfig: controlPlane().kubeconfigPath,
        leaderElectionNamespace: 'crossplane-system',
        circuitBreakerCooldownMs: 300_000,
      },
      { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
    );
    expect(code).to.equal(1);
    expect(out.stderr).to.equal('compositor diagnose: the server doesn\'t have a resource type "unicorns"\n');
  });
});
