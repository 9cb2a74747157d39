import { expect } from 'chai';
import {
  CachingRunner,
  RememberedRequirements,
  RequirementsRunner,
  stepFingerprint,
  type FunctionCall,
  type FunctionRunner,
  type RequiredResourceFetcher,
  type Requirements,
  type ResourceSelector,
  type Resources,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
/** The step "s" of every call below: function "f", no input. */
const STEP_F = stepFingerprint({ functionName: 'f', request: {} });
const select = (name: string): Requirements => ({
  resources: { cm: { apiVersion: 'v1', kind: 'ConfigMap', matchName: name } },
});

/** A function that requires what `wants` says now, recording each call; it passes its context through. */
function requiring(calls: FunctionCall[], wants: { requirements: Requirements | undefined }): FunctionRunner {
  return {
    run: (call): Promise<RunFunctionResponse> => {
      calls.push(call);
      const rsp: RunFunctionResponse = { meta: { ttlMs: 60_000 } };
      if (wants.requirements !== undefined) rsp.requirements = wants.requirements;
      if (call.request.context !== undefined) rsp.context = call.request.context;
      return Promise.resolve(rsp);
    },
  };
}

/** Serves the ConfigMap for any selector, recording each read. */
function reading(reads: ResourceSelector[], fail = false): RequiredResourceFetcher {
  return {
    fetchResources: (selector): Promise<Resources> => {
      reads.push(selector);
      if (fail) return Promise.reject(new Error('no such kind'));
      return Promise.resolve({ items: [{ resource: { ...CM, metadata: { name: selector.matchName ?? '' } } }] });
    },
    fetchSchema: () => Promise.resolve({}),
  };
}

interface Harness {
  calls: FunctionCall[];
  reads: ResourceSelector[];
  wants: { requirements: Requirements | undefined };
  remembered: RememberedRequirements;
  /** One reconcile of the XR with this uid (in namespace `ns-<uid>` unless given), running the step once. */
  reconcile: (
    uid: string,
    step?: string,
    extra?: Partial<FunctionCall>,
    namespace?: string,
  ) => Promise<RunFunctionResponse>;
}

function harness(max?: number, inner?: (fn: FunctionRunner) => FunctionRunner): Harness {
  const h: Omit<Harness, 'reconcile'> = {
    calls: [],
    reads: [],
    wants: { requirements: select('settings') },
    remembered: new RememberedRequirements(max),
  };
  const fn = requiring(h.calls, h.wants);
  const runner = inner?.(fn) ?? fn;
  return {
    ...h,
    reconcile: (uid, step = 's', extra = {}, namespace = `ns-${uid}`) =>
      new RequirementsRunner(runner, reading(h.reads), h.remembered.forXr(uid, namespace)).run({
        functionName: 'f',
        step,
        request: { context: { c: 1 } },
        ...extra,
      }),
  };
}

describe('functions/requirements loop seeded with the last run', () => {
  it('calls once when the function requires again what it required last run, reading it once instead of after the first call', async () => {
    const h = harness();
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(2);
    expect(h.reads).to.have.length(1);
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(3);
    expect(h.reads).to.have.length(2);
    expect(h.calls[2]?.request.requiredResources).to.deep.equal({
      cm: { items: [{ resource: { ...CM, metadata: { name: 'settings' } } }] },
    });
    expect(h.calls[2]?.request.context).to.deep.equal({ c: 1 });
  });

  it('calls twice when the requirements changed, sending only what the function now asks for', async () => {
    const h = harness();
    await h.reconcile('uid-a');
    h.wants.requirements = select('other');
    h.calls.length = 0;
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(2);
    const names = h.calls.map((c) => c.request.requiredResources?.cm?.items?.[0]?.resource?.metadata);
    expect(names).to.deep.equal([{ name: 'settings' }, { name: 'other' }]);
    // The new requirements are remembered: the next run is one call.
    h.calls.length = 0;
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(1);
  });

  it('calls twice, the second without the seeded resources, when the function stopped requiring anything', async () => {
    const h = harness();
    await h.reconcile('uid-a');
    h.wants.requirements = undefined;
    h.calls.length = 0;
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(2);
    expect(h.calls[1]?.request.requiredResources).to.deep.equal({});
    expect(h.remembered.size).to.equal(0);
  });

  it('does not seed an XR of another namespace, or another step of the same XR', async () => {
    const h = harness();
    await h.reconcile('uid-a', 's');
    h.calls.length = 0;
    await h.reconcile('uid-b', 's');
    expect(h.calls).to.have.length(2);
    expect(h.calls[0]?.request.requiredResources).to.equal(undefined);
    h.calls.length = 0;
    await h.reconcile('uid-a', 't');
    expect(h.calls).to.have.length(2);
    expect(h.calls[0]?.request.requiredResources).to.equal(undefined);
  });

  it('does not seed a step whose input or function changed: it is asked afresh, and its answer remembered', async () => {
    const cases: Record<string, { reason: string; changed: Partial<FunctionCall> }> = {
      input: { reason: 'the Composition gave the step another input', changed: { request: { input: { v: 2 } } } },
      function: { reason: 'the step now calls another function', changed: { functionName: 'g' } },
    };
    for (const [name, { reason, changed }] of Object.entries(cases)) {
      const h = harness();
      await h.reconcile('uid-a');
      h.calls.length = 0;
      await h.reconcile('uid-a', 's', changed);
      expect(h.calls, `${name}: ${reason}`).to.have.length(2);
      expect(h.calls[0]?.request.requiredResources, `${name}: first call unseeded`).to.equal(undefined);
      h.calls.length = 0;
      await h.reconcile('uid-a', 's', changed);
      expect(h.calls, `${name}: seeded with what the new step asked for`).to.have.length(1);
    }
  });

  it('seeds an XR with nothing of its own with what the step last required for another XR of its namespace', async () => {
    const h = harness();
    await h.reconcile('uid-a', 's', {}, 'team');
    h.calls.length = 0;
    await h.reconcile('uid-b', 's', {}, 'team');
    expect(h.calls, 'a new XR: one call').to.have.length(1);
    expect(Object.keys(h.calls[0]?.request.requiredResources ?? {})).to.deep.equal(['cm']);
    // A wrong guess: the function asks for something else, and is called with only that, as without a guess.
    h.wants.requirements = select('own');
    h.calls.length = 0;
    await h.reconcile('uid-c', 's', {}, 'team');
    expect(h.calls).to.have.length(2);
    expect(h.calls[1]?.request.requiredResources?.cm?.items?.[0]?.resource?.metadata).to.deep.equal({ name: 'own' });
    // The XR's own memory comes first.
    h.wants.requirements = select('settings');
    h.calls.length = 0;
    await h.reconcile('uid-a', 's', {}, 'team');
    expect(h.calls, 'uid-a: seeded with its own').to.have.length(1);
    // A cluster-scoped XR is guessed from other cluster-scoped ones only.
    h.calls.length = 0;
    await h.reconcile('uid-d', 's', {}, undefined);
    expect(h.calls[0]?.request.requiredResources).to.equal(undefined);
  });

  it('remembers nothing for an XR without a uid', async () => {
    const h = harness();
    await h.reconcile('');
    await h.reconcile('');
    expect(h.calls).to.have.length(4);
    expect(h.remembered.size).to.equal(0);
  });

  it('forgets the least recently used XR and step beyond its bound', async () => {
    const h = harness(2);
    await h.reconcile('uid-a');
    await h.reconcile('uid-b');
    await h.reconcile('uid-a'); // seeded: uid-a is now the most recently used
    await h.reconcile('uid-c'); // forgets uid-b
    expect(h.remembered.size).to.equal(2);
    h.calls.length = 0;
    await h.reconcile('uid-b');
    expect(h.calls, 'uid-b was forgotten').to.have.length(2);
    h.calls.length = 0;
    await h.reconcile('uid-c');
    expect(h.calls, 'uid-c is remembered').to.have.length(1);
  });

  it('calls as before, unseeded, when what was remembered cannot be read', async () => {
    const calls: FunctionCall[] = [];
    const wants = { requirements: select('settings') as Requirements | undefined };
    const remembered = new RememberedRequirements();
    remembered.forXr('uid-a')?.set('s', STEP_F, { resources: { gone: { apiVersion: 'x.io/v1', kind: 'Gone' } } });
    const reads: ResourceSelector[] = [];
    const failOnGone: RequiredResourceFetcher = {
      fetchResources: (selector) =>
        selector.kind === 'Gone' ? Promise.reject(new Error('no such kind')) : reading(reads).fetchResources(selector),
      fetchSchema: () => Promise.resolve({}),
    };
    const runner = new RequirementsRunner(requiring(calls, wants), failOnGone, remembered.forXr('uid-a'));
    await runner.run({ functionName: 'f', step: 's', request: {} });
    expect(calls).to.have.length(2);
    expect(calls[0]?.request.requiredResources).to.equal(undefined);
    expect(remembered.forXr('uid-a')?.get('s', STEP_F)).to.deep.equal(select('settings'));
  });

  it('remembers nothing from a FATAL response', async () => {
    const remembered = new RememberedRequirements();
    const fatal: FunctionRunner = {
      run: () =>
        Promise.resolve({ requirements: select('settings'), results: [{ severity: 'SEVERITY_FATAL', message: 'no' }] }),
    };
    await new RequirementsRunner(fatal, reading([]), remembered.forXr('uid-a')).run({
      functionName: 'f',
      step: 's',
      request: {},
    });
    expect(remembered.size).to.equal(0);
  });

  it('keeps bootstrap requirements: sent on the first call, beside what the step required last run', async () => {
    const h = harness();
    const bootstrap = {
      requiredResources: [{ requirementName: 'env', apiVersion: 'v1', kind: 'ConfigMap', name: 'env' }],
    };
    h.wants.requirements = { resources: { ...select('settings').resources, ...bootstrapSelector() } };
    await h.reconcile('uid-a', 's', { bootstrap });
    expect(h.calls).to.have.length(2);
    expect(Object.keys(h.calls[0]?.request.requiredResources ?? {})).to.deep.equal(['env']);
    h.calls.length = 0;
    await h.reconcile('uid-a', 's', { bootstrap });
    expect(h.calls).to.have.length(1);
    expect(Object.keys(h.calls[0]?.request.requiredResources ?? {})).to.have.members(['env', 'cm']);
  });

  it('lets a cached response answer the seeded call without calling the function', async () => {
    const now = 0;
    const h = harness(undefined, (fn) => new CachingRunner(fn, { clock: { now: () => now } }));
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(2);
    // The seeded first request is the request the second call was sent last run: the cache has its answer.
    await h.reconcile('uid-a');
    expect(h.calls).to.have.length(2);
    expect(h.reads).to.have.length(2);
  });
});

function bootstrapSelector(): Requirements['resources'] {
  return { env: { apiVersion: 'v1', kind: 'ConfigMap', matchName: 'env' } };
}
