// Starts a test function as a real, separate process serving gRPC on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../e2e/controlplane/ports.js';

export interface FunctionProcess {
  /** gRPC target, e.g. 127.0.0.1:40123. */
  endpoint: string;
  /** The process started (for a shell command, the shell: its group holds the function). */
  pid: number | undefined;
  /** Ends the process (SIGTERM by default; SIGKILL to crash it) and resolves once it has exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export const PROBE_FUNCTION = fileURLToPath(new URL('./probe-function.ts', import.meta.url));

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

async function waitListening(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`function process exited with code ${child.exitCode}`);
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`function process did not listen on ${port} within ${timeoutMs}ms`);
}

/**
 * Runs `node --import tsx <script> --insecure --address <host>:<port> [args]` and waits until it listens. The port is
 * a free one unless given (a test may start a function where a caller already tries to reach it); the host is
 * loopback unless given (e2e against kind listens where the cluster can reach it).
 */
export async function startFunction(
  script: string = PROBE_FUNCTION,
  port?: number,
  host = '127.0.0.1',
  args: readonly string[] = [],
): Promise<FunctionProcess> {
  port ??= await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, '--insecure', '--address', `${host}:${port}`, ...args],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  return listening(child, port, (signal) => child.kill(signal));
}

/**
 * Runs any function binary through the shell, `<command> --insecure --address=127.0.0.1:<port>` (the flags Crossplane's
 * function SDKs take), and waits until it listens. Stopping it signals the whole process group the shell started.
 */
export async function startFunctionCommand(command: string, port?: number): Promise<FunctionProcess> {
  port ??= await freePort();
  const child = spawn('sh', ['-c', `${command} --insecure --address=127.0.0.1:${port}`], {
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return listening(child, port, (signal) => {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  });
}

/** How to kill each function process still running, so that one whose starter exits (a stopped benchmark) goes too. */
const running = new Map<ChildProcess, (signal: 'SIGKILL') => void>();
process.on('exit', () => {
  for (const kill of running.values()) {
    try {
      kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

async function listening(
  child: ChildProcess,
  port: number,
  kill: (signal: 'SIGTERM' | 'SIGKILL') => void,
): Promise<FunctionProcess> {
  running.set(child, kill);
  child.once('exit', () => running.delete(child));
  try {
    await waitListening(child, port, 15_000);
  } catch (err) {
    kill('SIGKILL');
    throw err;
  }
  return {
    endpoint: `127.0.0.1:${port}`,
    pid: child.pid,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          resolve();
        });
        kill(signal);
      }),
  };
}
