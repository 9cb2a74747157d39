// The probe function (test/functions/probe-function.ts) as a process the fault benchmark can crash with SIGKILL
// and start again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '../../e2e/controlplane/ports.js';
import { PROBE_FUNCTION } from '../../test/functions/process.js';
import { until } from './util.js';

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

export class CrashableFunction {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  get endpoint(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(): Promise<CrashableFunction> {
    const fn = new CrashableFunction(await freePort());
    await fn.restart();
    return fn;
  }

  /** Starts the function on its port and waits until it listens. */
  async restart(): Promise<void> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', PROBE_FUNCTION, '--insecure', '--address', this.endpoint],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    this.child = child;
    await until(
      `probe function on ${this.endpoint}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`probe function exited with code ${child.exitCode}`);
        return (await canConnect(this.port)) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
  }

  /** SIGKILL: the crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
