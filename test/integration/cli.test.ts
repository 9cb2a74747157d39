import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../e2e/controlplane/ports.js';
import { compositor } from './compositorProcess.js';
import { controlPlane, eventually } from './harness.js';

describe('compositor start (integration, separate process)', () => {
  it('runs against the control plane, answers probes, and exits 0 on SIGTERM', async () => {
    const { child, output, exited } = compositor([
      'start',
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
    ]);
    await eventually(
      'compositor to log that it is ready',
      () => Promise.resolve(output.stdout.includes('compositor is ready') ? true : undefined),
      { timeoutMs: 30_000 },
    ).catch((err: unknown) => {
      child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\nstdout: ${output.stdout}\nstderr: ${output.stderr}`);
    });
    const lines = output.stdout.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.to.throw();
    child.kill('SIGTERM');
    const result = await exited;
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.include('"signal":"SIGTERM"');
  });

  it('exits 1 with one line when the kubeconfig is missing', async () => {
    const result = await compositor(['start', '--kubeconfig=/nonexistent/kubeconfig']).exited;
    expect(result.code).to.equal(1);
    expect(result.stderr.trim().split('\n'), result.stderr).to.deep.equal([
      'compositor: cannot start: kubeconfig "/nonexistent/kubeconfig" from --kubeconfig does not exist',
    ]);
  });

  it('exits 1 with one line, no stack trace, when the API server is unreachable', async () => {
    const closedPort = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'compositor-kc-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${closedPort}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const result = await compositor(['start', '--metrics-bind-address=0', '--health-probe-bind-address=0'], {
      KUBECONFIG: kubeconfig,
    }).exited;
    expect(result.code).to.equal(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).to.have.length(1);
    expect(lines[0]).to.match(
      new RegExp(
        `^compositor: cannot start: API server https://127\\.0\\.0\\.1:${closedPort} is unreachable after 10 attempts: .*ECONNREFUSED`,
      ),
    );
    expect(result.stderr).not.to.match(/\n\s+at /);
  });

  it('exits 2 naming the flag for an invalid value', async () => {
    const result = await compositor(['start', '--poll-interval=abc']).exited;
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('--poll-interval').and.include('Go duration');
  });
});
