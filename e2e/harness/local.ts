// The local target: a real kube-apiserver, etcd and kube-controller-manager on loopback, the chart's CRDs and RBAC
// applied as helm would install them, and compositor started from the built CLI (bin/compositor.js) as a separate
// process with the container arguments the chart renders. It authenticates by impersonating the chart's
// ServiceAccount, so a rule missing from the chart's ClusterRole fails a scenario as it would in a cluster.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { packageRoot } from '../../src/apis/index.js';
import { CONTENT_TYPE, Discovery, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { NODE_FLAGS } from '../../src/manager/nodeFlags.js';
import { startFunction, type FunctionProcess } from '../../test/functions/process.js';
import { ControlPlane } from '../controlplane/index.js';
import { freePort } from '../controlplane/ports.js';
import {
  chartCrds,
  compositorContainer,
  RELEASE_NAMESPACE,
  renderChart,
  serviceAccountName,
  type ChartValues,
  type Container,
} from './chart.js';
import { CONFIGMAPS_FUNCTION } from './functions.js';
import type { E2eTarget } from './target.js';

const CLI = join(packageRoot(), 'bin', 'compositor.js');
const BUILT = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
/** What the chart creates besides the workload; the Deployment becomes a process, its Service and PDB need pods. */
const INSTALLED_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const FIELD_MANAGER = 'helm';
const READY_TIMEOUT_MS = 60_000;

export class LocalTarget implements E2eTarget {
  private process: ChildProcess | undefined;
  private readonly discovery: Discovery;

  private constructor(
    private readonly plane: ControlPlane,
    readonly client: KubeClient,
    private readonly fn: FunctionProcess,
    private readonly dir: string,
  ) {
    this.discovery = new Discovery(client);
  }

  get functionEndpoint(): string {
    return this.fn.endpoint;
  }

  static async start(): Promise<LocalTarget> {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm run e2e does)`);
    const plane = await ControlPlane.start();
    let fn: FunctionProcess | undefined;
    try {
      fn = await startFunction(CONFIGMAPS_FUNCTION);
      const target = new LocalTarget(plane, plane.client(), fn, mkdtempSync(join(tmpdir(), 'compositor-e2e-')));
      await target.install(chartCrds());
      return target;
    } catch (err) {
      await fn?.stop();
      await plane.stop();
      throw err;
    }
  }

  async deploy(values: ChartValues = {}): Promise<void> {
    const objects = await renderChart(values);
    await this.install([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: RELEASE_NAMESPACE } },
      ...objects.filter((o) => INSTALLED_KINDS.has(o.kind)),
    ]);
    await this.stopCompositor();
    const kubeconfig = join(this.dir, 'kubeconfig');
    writeFileSync(kubeconfig, this.impersonating(serviceAccountName(objects)));
    const probes = `127.0.0.1:${await freePort()}`;
    const args = [
      ...localArgs(compositorContainer(objects)),
      `--kubeconfig=${kubeconfig}`,
      `--metrics-bind-address=127.0.0.1:${await freePort()}`,
      `--health-probe-bind-address=${probes}`,
    ];
    const log = openSync(join(this.dir, 'compositor.log'), 'a');
    writeFileSync(log, `--- compositor ${args.join(' ')}\n`);
    this.process = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
      cwd: packageRoot(),
      stdio: ['ignore', log, log],
      env: { ...process.env, ...containerEnv(compositorContainer(objects)), KUBECONFIG: '' },
    });
    await this.waitReady(`http://${probes}/readyz`);
  }

  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  logs(lines = 60): Promise<string> {
    const file = join(this.dir, 'compositor.log');
    const text = existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n') : [];
    return Promise.resolve(text.slice(-lines).join('\n'));
  }

  async close(): Promise<void> {
    await this.stopCompositor();
    await this.fn.stop();
    await this.plane.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** SIGTERM, as the kubelet stops a pod; SIGKILL if it outlives its shutdown deadline. */
  private async stopCompositor(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    await exited;
    clearTimeout(timer);
  }

  private async install(objects: readonly KubeObject[]): Promise<void> {
    for (const object of objects) {
      const { apiVersion, kind, metadata } = object;
      // Namespaced objects without a namespace go to the release's, as helm puts them; others ignore it.
      const path = await this.discovery.path(apiVersion, kind, metadata.name, metadata.namespace ?? RELEASE_NAMESPACE);
      await this.client.request('PATCH', path, {
        body: object,
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager: FIELD_MANAGER, force: true },
      });
    }
  }

  /** The admin's credentials asking to act as the ServiceAccount (kubectl --as): its rights, and nothing more. */
  private impersonating(serviceAccount: string): string {
    const cluster = this.plane.kubeConfig.getCurrentCluster();
    const user = this.plane.kubeConfig.getCurrentUser();
    if (!cluster || !user) throw new Error('the control plane kubeconfig has no current cluster or user');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [
        {
          ...user,
          name: 'compositor',
          impersonateUser: `system:serviceaccount:${RELEASE_NAMESPACE}:${serviceAccount}`,
        },
      ],
      contexts: [{ name: 'compositor', cluster: cluster.name, user: 'compositor' }],
      currentContext: 'compositor',
    });
    return kc.exportConfig();
  }

  private async waitReady(url: string): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const child = this.process;
      if (await answers(url)) return;
      if (!child || child.exitCode !== null) {
        throw new Error(`compositor exited with code ${child?.exitCode} before it was ready:\n${await this.logs()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`compositor did not become ready within ${READY_TIMEOUT_MS}ms:\n${await this.logs()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The chart's arguments minus the ones that only make sense in a pod (listen addresses are set per process). */
function localArgs(container: Container): string[] {
  return (container.args ?? []).filter(
    (arg) => !arg.startsWith('--metrics-bind-address') && !arg.startsWith('--health-probe-bind-address'),
  );
}

/** Plain environment variables of the container; downward-API ones get what the pod would see. */
function containerEnv(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (field === 'metadata.namespace') env[variable.name] = RELEASE_NAMESPACE;
    else if (field === 'metadata.name') env[variable.name] = 'compositor-local';
  }
  return env;
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}
