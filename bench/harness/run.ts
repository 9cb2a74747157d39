// What every benchmark run around a controller process shares: progress lines on stderr (with the RSS of the
// controller and the control plane, the memory available and the load), CPU seconds per process between two marks,
// and the control plane's logs kept when a run fails.
import { copyFileSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ControlPlane } from '../../e2e/controlplane/index.js';
import type { ControllerProcess } from './controller.js';
import { MIB, round, rssOf, treeCpuSeconds, treeRss } from './util.js';

/** Reports progress lines, each with a UTC timestamp; a no-op without a sink. */
export class Progress {
  constructor(
    private readonly sink: ((line: string) => void) | undefined,
    private readonly plane: ControlPlane,
    private readonly controller: ControllerProcess,
  ) {}

  line(text: string): void {
    this.sink?.(`${new Date().toISOString()} ${text}`);
  }

  /** `text` with the RSS of the controller, kube-apiserver and etcd, the memory available and the load. */
  withMemory(text: string): void {
    if (this.sink === undefined) return;
    const mib = (bytes: number): string => `${Math.round(bytes / MIB)} MiB`;
    const servers = this.plane.pids.map((pid) => `${processName(pid)} ${mib(rssOf(pid))}`);
    // treeRss(0) would be every process's: pid 0 is the parent of init.
    const pid = this.controller.pid;
    const controller = pid === undefined ? 'controller not running' : `controller ${mib(treeRss(pid))}`;
    const rss = [controller, ...servers].join(', ');
    this.line(`${text}; RSS ${rss}; available ${mib(memAvailable())}; load ${loadAverage().join(' ')}`);
  }

  /** Runs one phase between a start and an end line (the end says how long it took, or that it failed). */
  async phase<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    this.withMemory(`${name}: start`);
    try {
      const result = await work();
      this.withMemory(`${name}: end after ${round((Date.now() - started) / 1000, 1)} s`);
      return result;
    } catch (err) {
      this.withMemory(`${name}: failed after ${round((Date.now() - started) / 1000, 1)} s: ${String(err)}`);
      throw err;
    }
  }
}

/** The machine's 1, 5 and 15 minute load averages, two decimals. */
export function loadAverage(): number[] {
  return loadavg().map((l) => round(l, 2));
}

export function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return `pid ${pid} (gone)`;
  }
}

/** MemAvailable from /proc/meminfo, in bytes. */
function memAvailable(): number {
  try {
    const match = /^MemAvailable:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by the controller's process tree, each control plane process and the benchmark. */
export interface CpuMark {
  seconds: Record<string, number>;
  at: number;
}

/** `extra` names further processes (a function process) whose trees are counted under their name. */
export function cpuMark(
  plane: ControlPlane,
  controller: ControllerProcess,
  extra: Readonly<Record<string, number | undefined>> = {},
): CpuMark {
  const { user, system } = process.cpuUsage();
  const seconds: Record<string, number> = { benchmark: (user + system) / 1e6 };
  // treeCpuSeconds(0) would be every process's: pid 0 is the parent of init.
  if (controller.pid !== undefined) seconds.controller = treeCpuSeconds(controller.pid);
  for (const pid of plane.pids) seconds[processName(pid)] = treeCpuSeconds(pid);
  for (const [name, pid] of Object.entries(extra)) if (pid !== undefined) seconds[name] = treeCpuSeconds(pid);
  return { seconds, at: Date.now() };
}

/**
 * CPU seconds each process used between two marks, and how many of the machine's cores they kept busy together:
 * near the core count, the run was bound by the machine's CPU rather than by anyone's limits.
 */
export interface CpuFigures {
  seconds: Record<string, number>;
  coresBusy: number;
  cores: number;
}

export function cpuBetween(from: CpuMark, to: CpuMark): CpuFigures {
  const seconds: Record<string, number> = {};
  for (const [name, value] of Object.entries(to.seconds)) seconds[name] = round(value - (from.seconds[name] ?? 0), 2);
  const total = Object.values(seconds).reduce((t, v) => t + v, 0);
  return { seconds, coresBusy: round(total / ((to.at - from.at) / 1000), 2), cores: availableParallelism() };
}

/** Copies the API server's and etcd's logs next to the controller's before plane.stop() removes them. */
export function keepPlaneLogs(plane: ControlPlane, controller: ControllerProcess, progress: Progress): void {
  for (const name of ['kube-apiserver.log', 'etcd.log']) {
    const to = join(dirname(controller.log), name);
    try {
      copyFileSync(join(dirname(plane.kubeconfigPath), name), to);
      progress.line(`kept ${basename(to)} as ${to}`);
    } catch (copyError) {
      progress.line(`could not keep ${name}: ${String(copyError)}`);
    }
  }
}

/**
 * A benchmark's command line: when `moduleUrl` is the script node was started with, prints `usage` for --help, or
 * runs the benchmark with the arguments and prints its result as one JSON line. A stopped run still stops what it
 * started: SIGINT and SIGTERM exit, which runs the harness's exit hooks (they kill the controller, the function
 * processes and the plane's servers; the plane's directory, with its logs, is left behind).
 */
export async function runMain(
  moduleUrl: string,
  usage: string,
  run: (argv: readonly string[]) => Promise<unknown>,
): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  if (process.argv.includes('--help')) {
    process.stdout.write(usage);
    process.exit(0);
  }
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`${new Date().toISOString()} ${signal}: stopping\n`);
      process.exit(code);
    });
  }
  const result = await run(process.argv.slice(2));
  process.stdout.write(JSON.stringify(result) + '\n');
}

/**
 * Runs a benchmark's measurements: when they fail, the control plane's logs are kept next to the controller's; either
 * way the controller, then `others` (a function process) and the control plane are stopped.
 */
export async function measuring<T>(
  run: { plane: ControlPlane; controller: ControllerProcess; progress: Progress },
  work: () => Promise<T>,
  others: { what: string; stop: () => Promise<void> }[] = [],
): Promise<T> {
  const { plane, controller, progress } = run;
  try {
    return await work();
  } catch (err) {
    keepPlaneLogs(plane, controller, progress);
    throw err;
  } finally {
    const what = ['the controller', ...others.map((o) => o.what), 'the control plane'].join(', ');
    await progress.phase(`stop ${what}`, async () => {
      await controller.stop();
      for (const other of others) await other.stop();
      await plane.stop();
    });
  }
}
