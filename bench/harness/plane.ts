// The local control plane for benchmarks, and the faults the ControlPlane class has no method for: an etcd restart
// (by the plane's public pids: the etcd process is found by its command line and started again with the same one),
// and a kubeconfig that reaches the API server through a TCP proxy.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { sleep, until } from './util.js';

/** The benchmarks' plane: no controller manager; `apiServerArgs` added to kube-apiserver's flags. */
export function startPlane(apiServerArgs: readonly string[] = []): Promise<ControlPlane> {
  return ControlPlane.start({ controllerManager: false, apiServerArgs });
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((arg) => arg !== '');
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

const SETPRIV = '/usr/bin/setpriv';

/**
 * Restarts etcd: SIGTERM to the etcd the plane started (or the one a previous restart started), down for
 * `downMs`, then the same command line again (same data directory and ports). The ControlPlane does not know about
 * the new process: call stop() after plane.stop(). Caveat: after this, plane.restartApiServer() refuses (its
 * readiness check sees the plane's own etcd exited), so restart the API server first.
 */
export class EtcdRestarter {
  private child: ChildProcess | undefined;
  private argv: string[] | undefined;

  constructor(private readonly plane: ControlPlane) {}

  private current(): number {
    if (this.child?.pid !== undefined && this.child.exitCode === null) return this.child.pid;
    const pid = this.plane.pids.find((p) => (commandLine(p)[0] ?? '').endsWith('etcd'));
    if (pid === undefined) throw new Error('this control plane runs no etcd of its own');
    return pid;
  }

  async restart(downMs: number): Promise<void> {
    const pid = this.current();
    this.argv ??= commandLine(pid);
    process.kill(pid, 'SIGTERM');
    await until('etcd to exit', () => Promise.resolve(alive(pid) ? undefined : true), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    await sleep(downMs);
    const [binary, ...args] = this.argv;
    if (binary === undefined) throw new Error('cannot read etcd command line');
    const dataDir = args.find((a) => a.startsWith('--data-dir='))?.slice('--data-dir='.length) ?? '/tmp';
    const fd = openSync(join(dirname(dataDir), 'etcd.log'), 'a');
    const [command, commandArgs] = existsSync(SETPRIV)
      ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', binary, ...args]]
      : [binary, args];
    this.child = spawn(command, commandArgs, { detached: true, stdio: ['ignore', fd, fd] });
    closeSync(fd);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child?.pid === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Writes a copy of the plane's kubeconfig whose server is https://127.0.0.1:<port> (a proxy); returns its path. */
export function proxiedKubeconfig(plane: ControlPlane, port: number): string {
  const path = `${plane.kubeconfigPath}.proxied`;
  const original = readFileSync(plane.kubeconfigPath, 'utf8');
  writeFileSync(path, original.replace(plane.server, `https://127.0.0.1:${port}`));
  return path;
}

/** The API server's port, from the plane's server URL. */
export function apiPort(plane: ControlPlane): number {
  return Number(new URL(plane.server).port);
}
