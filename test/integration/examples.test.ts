import { join } from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { packageRoot } from '../../src/apis/index.js';
import { monotonicClock } from '../../src/base/index.js';
import { ExampleApplier } from '../../src/cli/examples.js';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import { condition, get, startEngine, type RunningEngine, type XrObject } from './engine.js';

// What `compositor dev` applies (examples/ and examples/legacy/) works as shipped: the App becomes Ready, and the
// v1-era Database claim gets its XDatabase and its connection Secret.

describe('examples (integration)', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;
  let applier: ExampleApplier;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine();
    const dirs = ['examples', join('examples', 'legacy')].map((dir) => join(packageRoot(), dir));
    applier = new ExampleApplier(client, dirs, pino({ level: 'silent' }), { ms: 200, clock: monotonicClock });
    await applier.start(AbortSignal.timeout(100_000));
  });

  after(async () => {
    await applier.stop();
    await running.stop();
  });

  it('makes the App Ready', async () => {
    const app = {
      apiVersion: 'example.compositor.crossplane.io/v1',
      kind: 'App',
      metadata: { name: 'example', namespace: 'default' },
    };
    await eventually(
      'App example Ready',
      async () => {
        const stored = await get<XrObject>(client, app);
        return condition(stored, 'Ready')?.status === 'True' ? stored : undefined;
      },
      { timeoutMs: 60_000 },
    );
  });

  it('binds the legacy Database claim and publishes host and port to its namespace', async () => {
    const claim = {
      apiVersion: 'legacy.example.compositor.crossplane.io/v1alpha1',
      kind: 'Database',
      metadata: { name: 'orders-db', namespace: 'default' },
    };
    const stored = await eventually(
      'claim orders-db Ready',
      async () => {
        const now = await get<XrObject & { status?: { host?: string } }>(client, claim);
        return condition(now, 'Ready')?.status === 'True' ? now : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(stored.status?.host).to.match(/^orders-db-[0-9a-f]{5}\.databases\.example\.internal$/);
    const secret = await eventually('Secret orders-db-connection', async () =>
      get<{ data?: Record<string, string> } & XrObject>(client, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'orders-db-connection', namespace: 'default' },
      }),
    );
    expect(Object.keys(secret.data ?? {}).sort()).to.deep.equal(['host', 'port']);
    expect(Buffer.from(secret.data?.port ?? '', 'base64').toString()).to.equal('5432');
  });
});
