import { expect } from 'chai';
import { NEVER } from 'rxjs';
import { KubeConfig } from '@kubernetes/client-node';
import type { CustomResourceDefinition } from '../../../src/apis/index.js';
import { IGNORED_FLAGS, warnIgnoredFlags } from '../../../src/cli/index.js';
import { ApiError, type Discovery, type EventSink, type KubeClient } from '../../../src/kube/index.js';
import { nopCrdName, NopProvider, NOP_TYPES } from '../../../src/managed/index.js';
import { createLogger } from '../../../src/manager/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { InformerRegistry, ObjectStore, type InformerLease, type ListerWatcher } from '../../../src/watch/index.js';
import { ManualClock, reconcileLimits } from '../../../src/base/index.js';
import { FakeListerWatcher, settle } from '../watch/fakeListerWatcher.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';

// compositor's JSON log lines must not repeat a key: pino writes a child logger's bindings and a call's fields side by
// side without merging them, and a log pipeline that parses the line keeps one value at random. These paths log
// through child loggers and the root logger's base fields, with the logger compositor runs with.

/** The keys of a JSON object's top level, in order and with repeats (JSON.parse would keep only the last). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    else if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && line[end + 1] === ':') keys.push(JSON.parse(line.slice(i, end + 1)) as string);
      i = end;
    }
  }
  return keys;
}

function repeated(keys: readonly string[]): string[] {
  return keys.filter((key, index) => keys.indexOf(key) !== index);
}

/** A clock whose sleeps end at once, so a relist's backoff takes no time. */
class NoWaitClock extends ManualClock {
  override sleep(_ms: number, signal?: AbortSignal): Promise<void> {
    return signal?.aborted === true ? Promise.reject(new Error('aborted')) : Promise.resolve();
  }
}

/** An informer of the registry sees its watch expire (410 Gone), which it logs before relisting. */
async function informerRelists(log: ReturnType<typeof createLogger>): Promise<void> {
  const fake = new FakeListerWatcher();
  const discovery = {
    resolve: () => Promise.resolve({ groupVersionPath: '/api/v1', plural: 'configmaps', namespaced: true }),
  } as unknown as Discovery;
  const registry = new InformerRegistry({
    client: {} as KubeClient,
    kubeConfig: new KubeConfig(),
    discovery,
    logger: log,
    syncIntervalMs: 3_600_000,
    clock: new NoWaitClock(),
    wrapListerWatcher: (): ListerWatcher => fake,
  });
  const lease = await registry.acquire('v1', 'ConfigMap');
  await lease.informer.waitForSync();
  await settle();
  fake.current.callbacks.onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
  await settle();
  await registry.stop();
}

/** The nop provider finds a Crossplane package serving one of its kinds, which it logs and leaves alone. */
async function nopProviderDefers(log: ReturnType<typeof createLogger>): Promise<void> {
  const crds: Record<string, CustomResourceDefinition> = Object.fromEntries(
    NOP_TYPES.map((type) => [
      nopCrdName(type),
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: {
          name: nopCrdName(type),
          ownerReferences: [
            { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision', name: 'p-1', uid: 'u', controller: true },
          ],
        },
        spec: {},
      },
    ]),
  );
  const client = {
    request: (_method: string, path: string): Promise<unknown> => {
      const crd = crds[path.split('/').at(-1) ?? ''];
      return crd ? Promise.resolve(crd) : Promise.reject(new ApiError(404, 'NotFound', `${path} not found`));
    },
  } as unknown as KubeClient;
  const informers = {
    acquire: (): Promise<InformerLease> =>
      Promise.resolve({
        informer: { store: new ObjectStore(), events$: NEVER, hasSynced: true, waitForSync: () => Promise.resolve() },
        resource: { groupVersionPath: '/apis/nop/v1', plural: 'nopresources', namespaced: true },
        release: () => Promise.resolve(),
      } as unknown as InformerLease),
  } as unknown as InformerRegistry;
  const nop = new NopProvider({
    client,
    informers,
    events: { record: () => undefined } as unknown as EventSink,
    metrics: createMetrics({ processMetrics: false }),
    logger: log,
    settings: {
      pollIntervalMs: 60_000,
      minPollIntervalMs: 1_000,
      syncIntervalMs: 3_600_000,
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
      workers: 1,
    },
    installCrd: false,
  });
  await nop.start();
  await nop.stop(AbortSignal.timeout(1_000));
}

describe('manager/log lines', () => {
  it('repeat no key on the paths that log through child loggers', async () => {
    const lines: string[] = [];
    const log = createLogger('trace', { write: (line: string) => lines.push(line) });
    await informerRelists(log);
    await nopProviderDefers(log);
    warnIgnoredFlags(
      IGNORED_FLAGS.slice(0, 2).map((flag) => ({ flag: flag.flags, reason: flag.reason })),
      log,
    );
    const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).to.include('watch expired (410 Gone): relisting');
    expect(messages.some((msg) => msg.includes('built-in nop provider leaves it'))).to.equal(true, messages.join('\n'));
    for (const line of lines) expect(repeated(topLevelKeys(line)), line).to.deep.equal([]);
  });

  it('are checked by a parser that sees repeats', () => {
    expect(repeated(topLevelKeys('{"a":1,"b":{"a":2},"s":"x\\"a\\":","a":3}'))).to.deep.equal(['a']);
  });
});
