import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/apis/index.js';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { eventually } from './harness.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('e2e/controlplane teardown (integration)', () => {
  before(function () {
    if (process.env.E2E_KUBECONFIG) this.skip();
  });

  it('stop() leaves no server process behind', async () => {
    const plane = await ControlPlane.start({ controllerManager: false });
    const pids = plane.pids;
    expect(pids).to.have.length(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid} before stop`).to.equal(true);
    await plane.stop();
    expect(pids.filter(alive), 'server pids still alive after stop').to.deep.equal([]);
  });

  it('no server survives when the process that started it is killed with SIGKILL', async () => {
    // A separate process starts a control plane, prints its pids and waits to be killed.
    const script = [
      "import { ControlPlane } from './e2e/controlplane/index.ts';",
      'const plane = await ControlPlane.start({ controllerManager: false });',
      "console.log(JSON.stringify({ pids: plane.pids, dir: plane.kubeconfigPath.replace(/\\/kubeconfig$/, '') }));",
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: packageRoot(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const { pids, dir } = await eventually(
      'the child to report its control plane pids',
      () =>
        Promise.resolve(
          stdout.includes('}') ? (JSON.parse(stdout.trim()) as { pids: number[]; dir: string }) : undefined,
        ),
      { timeoutMs: 60_000 },
    ).catch((err: unknown) => {
      child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\nstderr: ${stderr}`);
    });
    expect(pids).to.have.length(2);
    child.kill('SIGKILL');
    await eventually('etcd and kube-apiserver to die with their parent', () =>
      Promise.resolve(pids.some(alive) ? undefined : true),
    ).catch((err: unknown) => {
      for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
      throw err;
    });
    // A SIGKILLed parent cannot clean up after itself; the directory is all that may remain.
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the server and shows its log when it cannot start', async () => {
    const error = await ControlPlane.start({
      controllerManager: false,
      env: {
        ...process.env,
        KUBEBUILDER_ASSETS: join(packageRoot(), 'test', 'integration', 'fixtures', 'broken-assets'),
      },
    }).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/etcd exited during start|kube-apiserver exited during start/);
  });
});
