import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';

/** Every server started by this process, so an exiting test run never leaves one behind. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL is the only stop that cannot be waited for here.
  process.on('exit', () => {
    for (const child of running) killGroup(child, 'SIGKILL');
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

// setpriv asks the kernel to kill the server when this process dies, even by SIGKILL, when no handler can run.
const SETPRIV = '/usr/bin/setpriv';

export interface ServerProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly logFile: string;
  readonly exited: boolean;
  /** The last lines of the server's log, for error messages. */
  tail(lines?: number): string;
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts a server in its own process group (so a terminal's Ctrl-C reaches only the parent, which stops servers in
 * order) with stdout and stderr in `logFile`.
 */
export function startServer(name: string, binary: string, args: readonly string[], logFile: string): ServerProcess {
  installExitHook();
  const fd = openSync(logFile, 'a');
  const [command, commandArgs] = existsSync(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', binary, ...args]]
    : [binary, [...args]];
  const child = spawn(command, commandArgs, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
    child.once('error', () => {
      running.delete(child);
      resolve();
    });
  });

  return {
    name,
    pid: child.pid,
    logFile,
    get exited() {
      return !running.has(child);
    },
    tail: (lines = 20) => tailFile(logFile, lines),
    async stop(timeoutMs = 10_000) {
      if (!running.has(child)) return;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => {
        killGroup(child, 'SIGKILL');
      }, timeoutMs);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
}

function tailFile(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
