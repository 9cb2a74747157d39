import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/apis/index.js';
import { finishConfig, type StartConfig } from '../../src/cli/index.js';
import { runDev, type DevPlane } from '../../src/cli/dev.js';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import { get, remove } from './engine.js';

// `compositor dev` as users run it, on the shared control plane in place of the one dev starts itself (which this
// test does not stop): compositor's namespace exists before the engine writes its Secrets there, the banner comes
// once compositor is ready, and one line says when the examples are Ready, or which are not and why.

interface Dev {
  stderr: () => string;
  logs: string[];
  stop: () => Promise<number>;
}

function startDev(examplesDirs: string[], overrides: Partial<StartConfig>, examplesTimeoutMs?: number): Dev {
  const shared = controlPlane();
  const plane: DevPlane = {
    server: shared.server,
    kubeconfigPath: shared.kubeconfigPath,
    kubeConfig: shared.kubeConfig,
    stop: () => Promise.resolve(),
  };
  let stderr = '';
  const logs: string[] = [];
  const stopping = new AbortController();
  const config: StartConfig = {
    ...finishConfig({}),
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    gracefulShutdownTimeoutMs: 5_000,
    ...overrides,
  };
  const exited = runDev(
    { config, examplesDirs },
    { stdout: () => undefined, stderr: (text) => (stderr += text) },
    {
      startPlane: () => Promise.resolve(plane),
      signal: stopping.signal,
      logDestination: { write: (line: string) => logs.push(line) },
      ...(examplesTimeoutMs === undefined ? {} : { examplesTimeoutMs }),
    },
  );
  return {
    stderr: () => stderr,
    logs,
    stop: () => {
      stopping.abort(new Error('test done'));
      return exited;
    },
  };
}

/** Waits for `text` on dev's stderr; on timeout says what dev printed and logged. */
async function printed(dev: Dev, text: string, timeoutMs = 90_000): Promise<void> {
  await eventually(
    `dev to print ${JSON.stringify(text)}`,
    () => Promise.resolve(dev.stderr().includes(text) || undefined),
    {
      timeoutMs,
    },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\nstderr:\n${dev.stderr()}\nlog:\n${dev.logs.slice(-30).join('')}`);
  });
}

const namespaceRef = (name: string): { apiVersion: string; kind: string; metadata: { name: string } } => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
});

describe('compositor dev (integration)', function () {
  this.timeout(180_000);
  let client: KubeClient;

  before(() => {
    client = controlPlane().client();
  });

  it("creates compositor's namespace first, then prints the banner and the examples' Ready line", async () => {
    // A namespace of its own, through --leader-election-namespace, so the test sees dev create it.
    const namespace = `compositor-dev-${Date.now().toString(36)}`;
    expect(await get(client, namespaceRef(namespace))).to.equal(undefined);
    const examples = ['examples', join('examples', 'legacy')].map((dir) => join(packageRoot(), dir));
    const dev = startDev(examples, { leaderElectionNamespace: namespace });
    try {
      await printed(dev, 'compositor dev: ready;');
      // compositor's start issued the function client certificate once, in the namespace dev created before it.
      for (const secret of ['crossplane-root-ca', 'crossplane-tls-client']) {
        const found = await get(client, { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace } });
        expect(found, `Secret ${namespace}/${secret} when compositor is ready`).to.not.equal(undefined);
      }
      const banner = dev.stderr().slice(dev.stderr().indexOf('compositor dev: ready;'));
      expect(banner).to.include(`  export KUBECONFIG=${controlPlane().kubeconfigPath}\n`);
      expect(banner).to.include('  kubectl get composite,claim -A');

      await printed(dev, 'compositor dev: examples: 2 of 2 XRs and claims Ready in ');
      const lines = dev.stderr().split('\n');
      const at = (prefix: string): number => lines.findIndex((line) => line.startsWith(prefix));
      expect(at('compositor dev: metrics on 127.0.0.1:'), dev.stderr()).to.be.within(0, at('compositor dev: ready;'));
      expect(at('compositor dev: examples: '), dev.stderr()).to.be.above(at('compositor dev: ready;'));
      expect(lines.find((line) => line.startsWith('compositor dev: examples: '))).to.match(
        /^compositor dev: examples: 2 of 2 XRs and claims Ready in \d+\.\d s$/,
      );
      const secretErrors = dev.logs.filter((line) =>
        /cannot create or update secret|cannot load the client certificate/.test(line),
      );
      expect(secretErrors).to.deep.equal([]);
    } finally {
      expect(await dev.stop(), dev.stderr()).to.equal(0);
      await remove(client, namespaceRef(namespace));
    }
  });

  it('says which examples are not Ready at the deadline, and why, from their conditions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compositor-dev-examples-'));
    const group = 'devbroken.compositor.test';
    writeFileSync(
      join(dir, '10-broken.yaml'),
      [
        'apiVersion: apiextensions.crossplane.io/v2',
        'kind: CompositeResourceDefinition',
        `metadata: {name: xdevbrokens.${group}}`,
        'spec:',
        `  group: ${group}`,
        '  names: {kind: XDevBroken, plural: xdevbrokens}',
        '  scope: Namespaced',
        '  versions:',
        '    - name: v1',
        '      served: true',
        '      referenceable: true',
        '      schema: {openAPIV3Schema: {type: object}}',
        '---',
        'apiVersion: apiextensions.crossplane.io/v1',
        'kind: Composition',
        `metadata: {name: xdevbrokens.${group}}`,
        'spec:',
        `  compositeTypeRef: {apiVersion: ${group}/v1, kind: XDevBroken}`,
        '  mode: Pipeline',
        '  pipeline:',
        '    - step: missing',
        '      functionRef: {name: function-dev-nowhere}',
        '---',
        `apiVersion: ${group}/v1`,
        'kind: XDevBroken',
        'metadata: {name: broken, namespace: default}',
        'spec: {}',
        '---',
        // The API server refuses this one (an XR needs a spec): the report says so rather than "not created yet".
        `apiVersion: ${group}/v1`,
        'kind: XDevBroken',
        'metadata: {name: refused, namespace: default}',
        '',
      ].join('\n'),
    );
    const namespace = `compositor-dev-${Date.now().toString(36)}`;
    const dev = startDev([dir], { leaderElectionNamespace: namespace }, 20_000);
    const xr = { apiVersion: `${group}/v1`, kind: 'XDevBroken', metadata: { name: 'broken', namespace: 'default' } };
    try {
      await printed(dev, 'compositor dev: examples: 0 of 2 XRs Ready after ');
      const report = dev.stderr().slice(dev.stderr().indexOf('compositor dev: examples: ')).split('\n');
      expect(report[0]).to.match(/^compositor dev: examples: 0 of 2 XRs Ready after \d+\.\d s; not Ready:$/);
      expect(report[1]).to.match(/^ {2}XDevBroken default\/broken: Synced False \(ReconcileError\): .+/);
      expect(report[1]).to.include('function-dev-nowhere');
      expect(report[2]).to.match(/^ {2}XDevBroken default\/refused: not created yet: .+ spec: Required value$/);
    } finally {
      // Removed while dev's compositor runs, which removes the XR's finalizer.
      await remove(client, xr);
      await eventually('XDevBroken broken to be gone', async () => ((await get(client, xr)) ? undefined : true));
      expect(await dev.stop(), dev.stderr()).to.equal(0);
      await remove(client, namespaceRef(namespace));
    }
  });
});
