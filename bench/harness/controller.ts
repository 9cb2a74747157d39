// The controller under test as a separate process: compositor as the image runs it (`node bin/compositor.js`, the
// built CLI, so a figure such as RSS carries no TypeScript loader; the npm bench scripts build first) with a metrics
// port and a probe port, or from source through tsx when an experiment module is preloaded, or any other controller
// started by a shell command (`--controller-cmd`), whose figures that need compositor's metrics are then null.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/apis/index.js';
import { flagDefaults } from '../../src/cli/flags.js';
import { NODE_FLAGS } from '../../src/manager/nodeFlags.js';
import { freePort } from '../../e2e/controlplane/ports.js';
import { scrape, type Sample } from './metrics.js';
import { sleep, until } from './util.js';

export interface ControllerOptions {
  kubeconfigPath: string;
  /** A shell command that starts another controller instead of compositor (KUBECONFIG is set for it). */
  command?: string;
  /** compositor flags besides --kubeconfig and the two bind addresses, e.g. --log-level=warn. */
  args?: readonly string[];
  /** Modules node preloads into compositor (--import), for experiments (bench/harness/reuse-connections.ts). */
  preload?: readonly string[];
  /** Where stdout and stderr go (appended). */
  logFile?: string;
  /**
   * Environment variables for the controller besides the inherited ones, e.g. COMPOSITOR_CACHE_TRIM=false, or where a
   * benchmark's function processes listen, for another controller's command to use.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * Another controller's readiness URL (`--controller-ready-url`): start() resolves once it answers 2xx, as it does
   * for compositor's /readyz. Without it, start() of another controller resolves as soon as it is spawned.
   */
  readyUrl?: string;
  /** How long start() waits for readiness before it fails; READY_TIMEOUT_MS (60 s) by default. */
  readyTimeoutMs?: number;
}

const READY_TIMEOUT_MS = 60_000;

/**
 * `--max-reconcile-rate=<rate>` when a run overrides it, nothing otherwise: the benchmarks measure compositor as it
 * ships, so only an explicit override reaches the command line.
 */
export function reconcileRateArgs(rate: number | undefined): string[] {
  return rate === undefined ? [] : [`--max-reconcile-rate=${rate}`];
}

/** The rate a run reconciles at, for its JSON: the override, else compositor's shipped default. */
export function effectiveReconcileRate(rate: number | undefined): number {
  return rate ?? (flagDefaults().maxReconcileRate as number);
}

/** Every controller group this process started, killed when it exits so a failed run leaves none behind. */
const running = new Set<number>();
process.on('exit', () => {
  for (const pid of running) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

function track(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  running.add(pid);
  child.once('exit', () => running.delete(pid));
}
const STOP_TIMEOUT_MS = 45_000;

/** One running controller process; start() again after kill()/stop() for a restart. */
export class ControllerProcess {
  private child: ChildProcess | undefined;
  private metricsAddress: string | undefined;
  private readonly logFile: string;

  constructor(private readonly options: ControllerOptions) {
    this.logFile = options.logFile ?? join(mkdtempSync(join(tmpdir(), 'compositor-bench-')), 'controller.log');
  }

  /** True for compositor, whose metrics the benchmarks read; false for a --controller-cmd. */
  get isCompositor(): boolean {
    return this.options.command === undefined;
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** How compositor is started: `built` (bin/compositor.js) or `source` (tsx, with the preloaded experiments). */
  get mode(): 'built' | 'source' {
    return (this.options.preload ?? []).length > 0 ? 'source' : 'built';
  }

  private entry(): string[] {
    if (this.mode === 'source') {
      const preload = (this.options.preload ?? []).flatMap((module) => ['--import', module]);
      return [...NODE_FLAGS, '--import', 'tsx', ...preload, join(packageRoot(), 'src', 'cli', 'main.ts')];
    }
    if (!existsSync(join(packageRoot(), 'dist', 'src', 'cli', 'main.js'))) {
      throw new Error('compositor is not built: run `npm run build` first (the npm bench scripts do)');
    }
    return [...NODE_FLAGS, join(packageRoot(), 'bin', 'compositor.js')];
  }

  get log(): string {
    return this.logFile;
  }

  /** Starts the process; for compositor resolves once /readyz answers 200. */
  async start(): Promise<void> {
    if (this.pid !== undefined) throw new Error('the controller is already running');
    const fd = openSync(this.logFile, 'a');
    try {
      if (this.options.command !== undefined) {
        writeSync(fd, `--- ${this.options.command}\n`);
        this.child = spawn('sh', ['-c', this.options.command], {
          detached: true,
          stdio: ['ignore', fd, fd],
          env: { ...process.env, ...this.options.env, KUBECONFIG: this.options.kubeconfigPath },
        });
        track(this.child);
        this.recordExit(this.child);
        if (this.options.readyUrl !== undefined) await this.waitReady(this.child, this.options.readyUrl);
        return;
      }
      await this.startCompositor(fd);
    } finally {
      closeSync(fd);
    }
  }

  private async startCompositor(fd: number): Promise<void> {
    this.metricsAddress = `127.0.0.1:${await freePort()}`;
    const probes = `127.0.0.1:${await freePort()}`;
    const args = [
      'start',
      `--kubeconfig=${this.options.kubeconfigPath}`,
      `--metrics-bind-address=${this.metricsAddress}`,
      `--health-probe-bind-address=${probes}`,
      ...(this.options.args ?? []),
    ];
    writeSync(fd, `--- compositor ${args.join(' ')}\n`);
    const child = spawn(process.execPath, [...this.entry(), ...args], {
      cwd: packageRoot(),
      detached: true,
      env: {
        ...process.env,
        ...this.options.env,
        KUBECONFIG: '',
        HOME: mkdtempSync(join(tmpdir(), 'compositor-home-')),
      },
      stdio: ['ignore', fd, fd],
    });
    this.child = child;
    track(child);
    this.recordExit(child);
    await this.waitReady(child, `http://${probes}/readyz`);
  }

  /** Polls `url` until it answers 2xx; fails when the process exits first or after the ready timeout. */
  private async waitReady(child: ChildProcess, url: string): Promise<void> {
    await until(
      `${url} (log: ${this.logFile})`,
      async () => {
        if (child.exitCode !== null) throw new Error(`the controller exited with code ${child.exitCode}`);
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        return response.ok ? true : undefined;
      },
      { timeoutMs: this.options.readyTimeoutMs ?? READY_TIMEOUT_MS, intervalMs: 100 },
    );
  }

  /** Appends how the process ended to its log, so a controller that dies during a benchmark says how. */
  private recordExit(child: ChildProcess): void {
    child.once('exit', (code, signal) => {
      try {
        appendFileSync(this.logFile, `--- exited: code ${code ?? 'none'}, signal ${signal ?? 'none'}\n`);
      } catch {
        // The log's directory is gone.
      }
    });
  }

  /** compositor's metrics now; undefined for another controller. */
  async metrics(): Promise<Sample[] | undefined> {
    if (!this.isCompositor || this.metricsAddress === undefined) return undefined;
    return scrape(`http://${this.metricsAddress}/metrics`);
  }

  /** SIGKILL to the whole process group, as a crash or an OOM kill would end it. */
  kill(): Promise<void> {
    return this.signal('SIGKILL');
  }

  /** SIGTERM (a graceful shutdown), SIGKILL if it outlives its shutdown deadline. */
  async stop(): Promise<void> {
    const timer = setTimeout(() => void this.signal('SIGKILL'), STOP_TIMEOUT_MS);
    await this.signal('SIGTERM');
    clearTimeout(timer);
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
    await exited;
    // Let the OS release the ports before a restart binds new ones.
    await sleep(50);
  }
}
