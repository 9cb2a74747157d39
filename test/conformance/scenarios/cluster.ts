// Everything a scenario runs against: a fresh local control plane, compositor started from the CLI as a separate
// process authenticated as its ServiceAccount (so missing rights fail as they would in a cluster), one process
// serving every function that is not built in, and a stand-in for the Deployment controller (no kubelet runs
// here, so nothing else would ever make a Deployment available).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { packageRoot } from '../../../src/apis/index.js';
import { ENDPOINT_ANNOTATION } from '../../../src/functions/index.js';
import { CONTENT_TYPE, KubeClient, type KubeObject } from '../../../src/kube/index.js';
import { ControlPlane } from '../../../e2e/controlplane/index.js';
import { freePort } from '../../../e2e/controlplane/ports.js';
import { startFunction, type FunctionProcess } from '../../functions/process.js';
import { builtinFunction } from './builtins.js';
import { Kinds } from './kinds.js';
import { baseIdentity, compositeRights, SERVICE_ACCOUNT, SYSTEM_NAMESPACE } from './rbac.js';

const FUNCTION_SCRIPT = join(packageRoot(), 'test', 'conformance', 'functions', 'scenario-function.ts');
const FIELD_MANAGER = 'conformance';

export class ScenarioCluster {
  readonly kinds: Kinds;
  private compositor: ChildProcess | undefined;
  private simulator: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly plane: ControlPlane,
    readonly client: KubeClient,
    private readonly fn: FunctionProcess,
    private readonly dir: string,
  ) {
    this.kinds = new Kinds(client);
  }

  static async start(): Promise<ScenarioCluster> {
    const plane = await ControlPlane.start();
    const dir = mkdtempSync(join(tmpdir(), 'compositor-scenario-'));
    let fn: FunctionProcess | undefined;
    try {
      fn = await startFunction(FUNCTION_SCRIPT);
      const cluster = new ScenarioCluster(plane, plane.client(), fn, dir);
      for (const object of baseIdentity()) await cluster.applyObject(object);
      await cluster.startCompositor();
      cluster.simulateDeployments();
      return cluster;
    } catch (err) {
      await fn?.stop();
      await plane.stop();
      throw err;
    }
  }

  /**
   * Applies a scenario object as a user would; Functions that are not built in are pointed at the test process, and
   * built-ins pinned to other releases forced to the built-in (builtins.ts).
   * provider-nop is compositor's built-in nop provider here (started with the cluster), so its Provider object is
   * not applied; any other Provider cannot be served and fails the scenario clearly.
   */
  async apply(object: KubeObject): Promise<KubeObject | undefined> {
    if (object.kind === 'Provider') {
      const pkg = (object as { spec?: { package?: string } }).spec?.package ?? '';
      if (pkg.includes('/provider-nop:')) return undefined;
      throw new Error(`scenario needs provider ${pkg}, which compositor's scenario cluster cannot run`);
    }
    const applied = await this.applyObject(this.prepare(object));
    if (object.kind === 'CompositeResourceDefinition') {
      for (const grant of compositeRights(object)) await this.applyObject(grant);
    }
    return applied;
  }

  async delete(object: KubeObject, propagationPolicy?: string): Promise<void> {
    await this.client.request('DELETE', await this.kinds.path(object), {
      body: propagationPolicy ? { propagationPolicy } : undefined,
    });
  }

  /** compositor's log so far, for failure messages. */
  compositorLog(lines = 40): string {
    const text = readFileSync(join(this.dir, 'compositor.log'), 'utf8').trimEnd().split('\n');
    return text.slice(-lines).join('\n');
  }

  async stop(): Promise<void> {
    clearInterval(this.simulator);
    const compositor = this.compositor;
    if (compositor && compositor.exitCode === null) {
      const exited = new Promise((resolve) => compositor.once('exit', resolve));
      compositor.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      compositor.kill('SIGKILL');
    }
    await this.fn.stop();
    await this.plane.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private prepare(object: KubeObject): KubeObject {
    if (object.kind !== 'Function') return object;
    const builtin = builtinFunction(object);
    if (builtin !== undefined) return builtin;
    const annotations = { ...(object.metadata.annotations as Record<string, string> | undefined) };
    annotations[ENDPOINT_ANNOTATION] = this.fn.endpoint;
    return { ...object, metadata: { ...object.metadata, annotations } };
  }

  private async applyObject(object: KubeObject): Promise<KubeObject> {
    return this.client.request<KubeObject>('PATCH', await this.kinds.path(object), {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: FIELD_MANAGER, force: true },
    });
  }

  /** Starts `compositor start` with a kubeconfig holding the ServiceAccount's token; resolves once it is ready. */
  private async startCompositor(): Promise<void> {
    const kubeconfig = join(this.dir, 'kubeconfig');
    writeFileSync(kubeconfig, await this.serviceAccountKubeconfig());
    const probes = `127.0.0.1:${await freePort()}`;
    const log = openSync(join(this.dir, 'compositor.log'), 'a');
    this.compositor = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(packageRoot(), 'src', 'cli', 'main.ts'),
        'start',
        `--kubeconfig=${kubeconfig}`,
        '--function-insecure',
        '--enable-nop-provider',
        '--metrics-bind-address=0',
        `--health-probe-bind-address=${probes}`,
      ],
      { cwd: packageRoot(), stdio: ['ignore', log, log], env: { ...process.env, KUBECONFIG: '' } },
    );
    const deadline = Date.now() + 60_000;
    while (!(await ready(`http://${probes}/readyz`))) {
      if (this.compositor.exitCode !== null || Date.now() > deadline) {
        throw new Error(`compositor did not become ready:\n${this.compositorLog()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  private async serviceAccountKubeconfig(): Promise<string> {
    const path = `/api/v1/namespaces/${SYSTEM_NAMESPACE}/serviceaccounts/${SERVICE_ACCOUNT}/token`;
    const request = await this.client.request<{ status: { token: string } }>('POST', path, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    });
    const admin = this.plane.kubeConfig.getCurrentCluster();
    if (!admin) throw new Error('the control plane kubeconfig has no cluster');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [admin],
      users: [{ name: SERVICE_ACCOUNT, token: request.status.token }],
      contexts: [{ name: SERVICE_ACCOUNT, cluster: admin.name, user: SERVICE_ACCOUNT }],
      currentContext: SERVICE_ACCOUNT,
    });
    return kc.exportConfig();
  }

  /** Marks every Deployment as rolled out and available, as the Deployment controller and kubelets would. */
  private simulateDeployments(): void {
    let busy = false;
    this.simulator = setInterval(() => {
      if (busy) return;
      busy = true;
      this.rollOutDeployments()
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 300);
  }

  private async rollOutDeployments(): Promise<void> {
    const list = await this.client.request<{ items: Deployment[] }>('GET', '/apis/apps/v1/deployments');
    for (const d of list.items) {
      const replicas = d.spec?.replicas ?? 1;
      if (d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === replicas) continue;
      const status = {
        observedGeneration: d.metadata.generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }],
      };
      await this.client.request(
        'PATCH',
        `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/${d.metadata.name}/status`,
        {
          body: { status },
          contentType: CONTENT_TYPE.mergePatch,
        },
      );
    }
  }
}

type Deployment = KubeObject & {
  metadata: { generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; availableReplicas?: number };
};

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}
