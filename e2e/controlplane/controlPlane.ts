import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// From its own module, not the package root, which loads client-node's generated API clients
// (src/kube/slimClientNode.ts): the CLI's dev command imports this module.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { stringify } from 'yaml';
import { KubeClient } from '../../src/kube/index.js';
import { resolveBinaries, type Component } from './binaries.js';
import { freePort } from './ports.js';
import { startServer, type ServerProcess } from './process.js';

export interface ControlPlaneOptions {
  /** Also run kube-controller-manager (owner-reference garbage collection, namespace deletion, ClusterRole aggregation). Default true. */
  controllerManager?: boolean;
  /** Where to put data, certificates, logs and the kubeconfig; a fresh temporary directory by default. */
  dir?: string;
  /** Keep `dir` after stop (for debugging); default false. */
  keepDir?: boolean;
  startTimeoutMs?: number;
  /** Extra kube-apiserver flags, e.g. --watch-cache=false so watches read etcd directly. */
  apiServerArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** How a started control plane removes its files and restarts its API server; an external cluster does neither. */
interface Lifecycle {
  cleanup: () => void;
  startApi: () => ServerProcess;
  etcdUrl?: string;
}

const EXTERNAL: Lifecycle = {
  cleanup: () => undefined,
  startApi: () => {
    throw new Error('an external cluster (E2E_KUBECONFIG) cannot be restarted by the harness');
  },
};

/** The admin identity of the local control plane: member of system:masters, so it may also impersonate. */
const ADMIN_USER = 'compositor-admin';

/**
 * A real kube-apiserver + etcd (+ kube-controller-manager) on loopback ports, or an existing cluster when
 * E2E_KUBECONFIG is set. start() resolves once /readyz answers; stop() leaves no process behind.
 */
export class ControlPlane {
  private constructor(
    readonly kubeconfigPath: string,
    readonly kubeConfig: KubeConfig,
    private readonly servers: ServerProcess[],
    private readonly lifecycle: Lifecycle = EXTERNAL,
  ) {}

  /** True when this is a user's cluster (E2E_KUBECONFIG) rather than one this process started. */
  get external(): boolean {
    return this.servers.length === 0;
  }

  get server(): string {
    return this.kubeConfig.getCurrentCluster()?.server ?? '';
  }

  /** Process ids of the servers this control plane started (empty for an external cluster). */
  get pids(): number[] {
    return this.servers.map((server) => server.pid).filter((pid): pid is number => pid !== undefined);
  }

  client(): KubeClient {
    return new KubeClient(this.kubeConfig);
  }

  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const env = options.env ?? process.env;
    if (env.E2E_KUBECONFIG) {
      const kc = new KubeConfig();
      kc.loadFromFile(env.E2E_KUBECONFIG);
      return new ControlPlane(env.E2E_KUBECONFIG, kc, []);
    }
    const withKcm = options.controllerManager ?? true;
    const components: Component[] = withKcm
      ? ['etcd', 'kube-apiserver', 'kube-controller-manager']
      : ['etcd', 'kube-apiserver'];
    const binaries = await resolveBinaries(components, env);
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'compositor-cp-'));
    const cleanup = (): void => {
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
    };
    const servers: ServerProcess[] = [];
    const log = options.log ?? (() => undefined);
    try {
      const files = writeCredentials(dir);
      const etcdPort = await freePort();
      const apiPort = await freePort();
      servers.push(startEtcd(binaries.etcd, dir, etcdPort, await freePort()));
      log(`etcd on 127.0.0.1:${etcdPort}`);
      const startApi = (): ServerProcess =>
        startApiServer(binaries['kube-apiserver'], dir, files, {
          etcdPort,
          apiPort,
          extraArgs: options.apiServerArgs ?? [],
        });
      servers.push(startApi());
      log(`kube-apiserver on https://127.0.0.1:${apiPort}`);
      const kubeconfigPath = join(dir, 'kubeconfig');
      const kc = await waitForServingCert({
        dir,
        apiPort,
        token: files.token,
        servers,
        timeoutMs: options.startTimeoutMs ?? 60_000,
      });
      writeFileSync(kubeconfigPath, kc.exportConfig());
      const plane = new ControlPlane(kubeconfigPath, kc, servers, {
        cleanup,
        startApi,
        etcdUrl: `http://127.0.0.1:${etcdPort}`,
      });
      await plane.waitReady(options.startTimeoutMs ?? 60_000);
      if (withKcm) {
        servers.push(startControllerManager(binaries['kube-controller-manager'], dir, kubeconfigPath));
        log('kube-controller-manager started (garbagecollector, namespace, clusterrole-aggregation)');
      }
      return plane;
    } catch (err) {
      await Promise.all(servers.map((server) => server.stop()));
      cleanup();
      throw err;
    }
  }

  /** Stops every server (controller manager, API server, then etcd) and removes the temporary directory. */
  async stop(): Promise<void> {
    for (const server of [...this.servers].reverse()) await server.stop();
    this.lifecycle.cleanup();
  }

  /**
   * Kills kube-apiserver at once (as a crash would), keeps it down for `downMs`, then starts it again on the same
   * port, certificate and etcd, and resolves when it is ready: for tests of what survives an API server outage.
   */
  async restartApiServer(options: { downMs?: number; timeoutMs?: number } = {}): Promise<void> {
    const index = this.servers.findIndex((server) => server.name === 'kube-apiserver');
    const apiserver = this.servers[index];
    if (index < 0 || !apiserver) throw new Error('this control plane runs no kube-apiserver of its own');
    await apiserver.stop(0);
    if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs));
    this.servers[index] = this.lifecycle.startApi();
    await this.waitReady(options.timeoutMs ?? 60_000);
  }

  /**
   * Compacts etcd's history up to its current revision, as the API server does every five minutes, so any
   * resourceVersion read before this call is "too old" for a watch: the real cause of 410 Gone.
   */
  async compactEtcd(): Promise<void> {
    const { etcdUrl } = this.lifecycle;
    if (!etcdUrl) throw new Error('this control plane runs no etcd of its own');
    const post = async (path: string, body: unknown): Promise<{ header?: { revision?: string } }> => {
      const response = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`etcd ${path}: HTTP ${response.status} ${await response.text()}`);
      return (await response.json()) as { header?: { revision?: string } };
    };
    const { header } = await post('/v3/kv/range', { key: Buffer.from('/').toString('base64') });
    if (!header?.revision) throw new Error('etcd returned no revision');
    await post('/v3/kv/compaction', { revision: header.revision, physical: true });
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const client = this.client();
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      const dead = this.servers.find((server) => server.exited);
      if (dead) throw exitedDuringStart(dead);
      try {
        await client.request('GET', '/readyz');
        return;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const apiserver = this.servers.find((server) => server.name === 'kube-apiserver');
    throw new Error(`kube-apiserver not ready after ${timeoutMs}ms (last: ${last}):\n${apiserver?.tail() ?? ''}`);
  }
}

interface Credentials {
  token: string;
  tokenFile: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  certDir: string;
}

function writeCredentials(dir: string): Credentials {
  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, { mode: 0o600 });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  writeFileSync(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
  return { token, tokenFile, serviceAccountKey, serviceAccountPub, certDir: join(dir, 'certs') };
}

function startEtcd(binary: string, dir: string, clientPort: number, peerPort: number): ServerProcess {
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return startServer(
    'etcd',
    binary,
    [
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
    join(dir, 'etcd.log'),
  );
}

function startApiServer(
  binary: string,
  dir: string,
  files: Credentials,
  ports: { etcdPort: number; apiPort: number; extraArgs: readonly string[] },
): ServerProcess {
  return startServer(
    'kube-apiserver',
    binary,
    [
      `--etcd-servers=http://127.0.0.1:${ports.etcdPort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${ports.apiPort}`,
      `--cert-dir=${files.certDir}`,
      `--token-auth-file=${files.tokenFile}`,
      '--authorization-mode=RBAC',
      `--service-account-key-file=${files.serviceAccountPub}`,
      `--service-account-signing-key-file=${files.serviceAccountKey}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      '--service-cluster-ip-range=10.0.0.0/24',
      // On loopback the default reconciler refuses to start ("cannot use public IP 127.0.0.1").
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      // Nothing creates default ServiceAccounts without the full controller set.
      '--disable-admission-plugins=ServiceAccount',
      '--v=1',
      ...ports.extraArgs,
    ],
    join(dir, 'kube-apiserver.log'),
  );
}

function startControllerManager(binary: string, dir: string, kubeconfig: string): ServerProcess {
  return startServer(
    'kube-controller-manager',
    binary,
    [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--controllers=garbagecollector,namespace,clusterrole-aggregation',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      '--v=1',
    ],
    join(dir, 'kube-controller-manager.log'),
  );
}

/**
 * kube-apiserver writes a self-signed serving certificate (with its CA) to --cert-dir on start; the kubeconfig
 * trusts exactly that bundle, so TLS is verified without generating certificates ourselves.
 */
async function waitForServingCert(start: {
  dir: string;
  apiPort: number;
  token: string;
  servers: readonly ServerProcess[];
  timeoutMs: number;
}): Promise<KubeConfig> {
  const { dir, apiPort, token, servers, timeoutMs } = start;
  const certFile = join(dir, 'certs', 'apiserver.crt');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(certFile)) {
    const dead = servers.find((server) => server.exited);
    if (dead) throw exitedDuringStart(dead);
    if (Date.now() > deadline) throw new Error(`kube-apiserver wrote no serving certificate within ${timeoutMs}ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The file appears before it is complete on slow disks; read until it holds a whole PEM block.
  let pem = readFileSync(certFile, 'utf8');
  while (!pem.includes('END CERTIFICATE')) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pem = readFileSync(certFile, 'utf8');
  }
  const kc = new KubeConfig();
  kc.loadFromString(
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'compositor-local',
          cluster: {
            server: `https://127.0.0.1:${apiPort}`,
            'certificate-authority-data': Buffer.from(pem).toString('base64'),
          },
        },
      ],
      users: [{ name: ADMIN_USER, user: { token } }],
      contexts: [{ name: 'compositor-local', context: { cluster: 'compositor-local', user: ADMIN_USER } }],
      'current-context': 'compositor-local',
    }),
  );
  return kc;
}

/** The first line names the server and its last log line; the lines after it give more of the log. */
function exitedDuringStart(server: ServerProcess): Error {
  return new Error(`${server.name} exited during start: ${server.tail(1)}\n${server.tail()}`);
}
