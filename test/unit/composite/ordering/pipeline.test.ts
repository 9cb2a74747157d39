import { expect } from 'chai';
import {
  deletingSince,
  gateCreates,
  teardownMessage,
  graphOf,
  validateGraph,
  waitingMessage,
  waveMessage,
  type Hold,
  type ResourceState,
} from '../../../../src/composite/ordering/index.js';
import {
  runPipeline,
  type Dependency,
  type FunctionCall,
  type RunFunctionResponse,
  type State,
} from '../../../../src/functions/index.js';

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });

/**
 * Three steps as a Composition might chain them: one composes the network and declares its order, one (built before
 * the field existed) adds a database and says nothing about order, one adds the app and its edges to the rest.
 */
const STEPS: Record<string, (desired: State, deps: Dependency[]) => RunFunctionResponse> = {
  network: (d) => ({
    desired: { ...d, resources: { ...d.resources, vpc: { resource: {} }, subnet: { resource: {} } } },
    dependencies: { items: [on('subnet', 'vpc')] },
  }),
  legacy: (d) => ({ desired: { ...d, resources: { ...d.resources, db: { resource: {} } } } }),
  app: (d, deps) => ({
    desired: { ...d, resources: { ...d.resources, app: { resource: {} } } },
    dependencies: { items: [...deps, on('db', 'subnet'), on('app', 'db')] },
  }),
};

async function pipeline(): Promise<Dependency[]> {
  const runner = {
    run: (call: FunctionCall): Promise<RunFunctionResponse> => {
      const step = STEPS[call.functionName];
      if (step === undefined) throw new Error(`no step ${call.functionName}`);
      return Promise.resolve(step(call.request.desired ?? {}, call.request.dependencies?.items ?? []));
    },
  };
  const out = await runPipeline(
    {
      steps: Object.keys(STEPS).map((name) => ({ step: name, functionRef: { name } })),
      observed: { composite: { resource: {} } },
      ordering: true,
    },
    { runner },
  );
  return out.dependencies ?? [];
}

describe('composite/ordering over a pipeline', () => {
  it('creates wave by wave as the graph the steps accumulated says, each wave once the previous is Ready', async () => {
    const { graph } = validateGraph(graphOf(await pipeline()), new Set(['vpc', 'subnet', 'db', 'app']));
    const states = new Map<string, ResourceState>(
      ['vpc', 'subnet', 'db', 'app'].map((n) => [n, { desired: true, observed: false, ready: false }]),
    );
    const waves: string[][] = [];
    for (let pass = 0; pass < 10; pass++) {
      const gate = gateCreates(graph, states);
      const created = gate.apply.filter((n) => states.get(n)?.observed === false);
      if (created.length > 0) waves.push(created);
      // What was applied exists now; what existed became Ready (a watch event brings the next pass).
      for (const [name, s] of states) {
        if (s.observed) states.set(name, { ...s, ready: true });
        else if (gate.apply.includes(name)) states.set(name, { ...s, observed: true });
      }
    }
    expect(waves).to.deep.equal([['vpc'], ['subnet'], ['db'], ['app']]);
  });
});

describe('composite/ordering messages', () => {
  const hold = (resource: string, waitsOn: string[]): Hold => ({
    resource,
    waitsOn,
    reason: `waits on ${waitsOn.join(', ')}`,
    deadlocked: false,
  });

  it('lists what waits on what, sorted, at most five', () => {
    expect(waitingMessage([hold('web', ['app']), hold('app', ['db', 'net'])])).to.equal(
      'app waits on db, net; web waits on app',
    );
    const many = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => hold(n, ['z']));
    expect(waitingMessage(many)).to.equal(
      'a waits on z; b waits on z; c waits on z; d waits on z; e waits on z; and 2 more',
    );
  });

  it('words a deletion by when it started, which does not move while it waits', () => {
    expect(deletingSince('vpc', '2026-11-28T10:00:00Z')).to.equal('vpc is being deleted since 2026-11-28T10:00:00Z');
    expect(deletingSince('vpc', undefined)).to.equal('vpc is being deleted');
    expect(waveMessage(['queue', 'db'], 2)).to.equal('Deleting db, queue; 2 more waves after them');
    expect(waveMessage(['cluster'], 0)).to.equal('Deleting cluster; the last wave');
  });

  it('says what a teardown waits on, held resources and deletions under way, by name', () => {
    const held = [{ ...hold('cluster', ['release']), reason: 'waits for release to be deleted' }];
    expect(teardownMessage(held, [{ name: 'release', deletionTimestamp: '2026-11-28T10:00:00Z' }])).to.equal(
      'cluster waits for release to be deleted; release is being deleted since 2026-11-28T10:00:00Z',
    );
  });
});
