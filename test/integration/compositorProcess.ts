// Runs the compositor CLI from source as a separate process, as users run the built one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/apis/index.js';

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CompositorProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  output: { stdout: string; stderr: string };
  exited: Promise<Exited>;
}

/** Starts `compositor <args>`; stdout and stderr are collected as they arrive. */
export function compositor(args: string[], env: NodeJS.ProcessEnv = {}): CompositorProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(packageRoot(), 'src', 'cli', 'main.ts'), ...args], {
    cwd: packageRoot(),
    env: { ...process.env, KUBECONFIG: '', HOME: mkdtempSync(join(tmpdir(), 'compositor-home-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<Exited>((resolve) =>
    child.on('exit', (code) => {
      resolve({ code, ...output });
    }),
  );
  return { child, output, exited };
}
