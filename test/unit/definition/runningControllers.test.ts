import { expect } from 'chai';
import pino from 'pino';
import {
  RunningControllers,
  type CompositeFactoryInput,
  type CompositeResourceDefinition,
  type RunningComposite,
} from '../../../src/definition/index.js';
import { createMetrics } from '../../../src/metrics/index.js';

// The one routine by which the XRD controller and a shard follower start, restart and stop an XRD's controllers.
// Fake controllers hold fake informer leases, so a test sees what a half-started controller left behind.

type Cached = CompositeResourceDefinition & {
  metadata: { deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string; reason: string; observedGeneration: number }[] };
};

function xrd(generation: number, deleting = false): Cached {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'xapps.example.org', generation, ...(deleting ? { deletionTimestamp: 'now' } : {}) },
    spec: { group: 'example.org', names: { kind: 'XApp', plural: 'xapps' }, versions: [] },
  };
}

/** Leases held right now, by whom. */
class Leases {
  readonly held = new Set<string>();
}

/** A controller that takes a lease when it starts, then fails or blocks if told to, and releases on stop. */
class FakeController implements RunningComposite {
  readonly deadlines: AbortSignal[] = [];
  private release: (() => void) | undefined;

  constructor(
    readonly name: string,
    private readonly leases: Leases,
    private readonly behaviour: { fail?: boolean; until?: Promise<void> } = {},
  ) {}

  async start(): Promise<void> {
    this.leases.held.add(this.name);
    await this.behaviour.until;
    if (this.behaviour.fail) throw new Error(`cannot start ${this.name}: the XR kind is not served`);
  }

  stop(deadline: AbortSignal): Promise<void> {
    this.deadlines.push(deadline);
    this.leases.held.delete(this.name);
    this.release?.();
    return Promise.resolve();
  }
}

function harness(behaviour: { fail?: boolean; until?: Promise<void> } = {}): {
  controllers: RunningControllers;
  leases: Leases;
  built: FakeController[];
  inputs: CompositeFactoryInput[];
  cache: { xrd: Cached | undefined };
} {
  const leases = new Leases();
  const built: FakeController[] = [];
  const inputs: CompositeFactoryInput[] = [];
  const cache: { xrd: Cached | undefined } = { xrd: undefined };
  const controllers = new RunningControllers({
    newComposite: (input) => {
      inputs.push(input);
      const controller = new FakeController(`${input.name}#${built.length}`, leases, behaviour);
      built.push(controller);
      return controller;
    },
    cached: () => cache.xrd,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    stopDeadlineMs: 30_000,
  });
  return { controllers, leases, built, inputs, cache };
}

describe('definition/RunningControllers', () => {
  const signal = new AbortController().signal;
  const key = 'xapps.example.org';

  it('a composite controller whose start fails releases what it took and is not kept', async () => {
    const { controllers, leases } = harness({ fail: true });
    const error = await controllers.startComposite(key, xrd(1), signal).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/XR kind is not served/);
    expect([...leases.held], 'no lease left behind').to.deep.equal([]);
    expect(controllers.names()).to.deep.equal([]);
  });

  it('a claim controller whose start fails releases what it took; the composite controller keeps running', async () => {
    const { controllers, leases } = harness();
    await controllers.startComposite(key, xrd(1), signal);
    const claim = new FakeController('claim/apps.example.org', leases, { fail: true });
    const error = await controllers.startClaim(key, () => claim, signal).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
    expect([...leases.held]).to.deep.equal(['composite/xapps.example.org#0']);
    expect(controllers.get(key)?.claim).to.equal(undefined);
  });

  it('restarts a controller for a new generation, stopping the old one first', async () => {
    const { controllers, leases, built } = harness();
    await controllers.startComposite(key, xrd(1), signal);
    await controllers.startComposite(key, xrd(2), signal);
    expect(built[0]?.deadlines).to.have.length(1);
    expect([...leases.held]).to.deep.equal(['composite/xapps.example.org#1']);
    expect(controllers.get(key)?.generation).to.equal(2);
  });

  it('stops at once a controller whose start ends after stopAll began', async () => {
    let finishStart: () => void = () => undefined;
    const until = new Promise<void>((resolve) => (finishStart = resolve));
    const { controllers, leases, built } = harness({ until });
    const starting = controllers.startComposite(key, xrd(1), signal);
    await controllers.stopAll(new AbortController().signal);
    finishStart();
    await starting;
    expect(built[0]?.deadlines.map((d) => d.aborted)).to.deep.equal([true]);
    expect([...leases.held]).to.deep.equal([]);
    expect(controllers.names()).to.deep.equal([]);
  });

  it('a stop for a restart ends with the reconcile that asked for it', async () => {
    const { controllers, built } = harness();
    await controllers.startComposite(key, xrd(1), signal);
    const reconcile = new AbortController();
    await controllers.stop(key, reconcile.signal);
    const deadline = built[0]?.deadlines[0];
    expect(deadline?.aborted).to.be.false;
    reconcile.abort();
    expect(deadline?.aborted, 'the reconcile was aborted at shutdown').to.be.true;
  });

  it('tells a controller its restart is due once the cached XRD moved on, but not while it is deleted', async () => {
    const { controllers, inputs, cache } = harness();
    cache.xrd = xrd(1);
    await controllers.startComposite(key, xrd(1), signal);
    const stale = inputs[0]?.stale ?? ((): boolean => true);
    expect(stale()).to.be.false;
    cache.xrd = xrd(2);
    expect(stale()).to.be.true;
    cache.xrd = xrd(3, true);
    expect(stale()).to.be.false;
  });

  it('keeps a controller reconciling while the cached generation is one the XRD controller cannot establish', async () => {
    const { controllers, inputs, cache } = harness();
    await controllers.startComposite(key, xrd(1), signal);
    const stale = inputs[0]?.stale ?? ((): boolean => true);
    const established = (status: string, reason: string, observedGeneration: number): Cached => ({
      ...xrd(2),
      status: { conditions: [{ type: 'Established', status, reason, observedGeneration }] },
    });
    const cases: Record<string, { reason: string; cached: Cached; want: boolean }> = {
      refused: {
        reason: 'its CRD was refused: no restart is coming',
        cached: established('False', 'CRDNotApplied', 2),
        want: false,
      },
      invalid: {
        reason: 'the XRD is invalid: no restart is coming',
        cached: established('False', 'InvalidDefinition', 2),
        want: false,
      },
      waiting: {
        reason: 'its CRD is on the way: the restart is coming',
        cached: established('False', 'WaitingForCompositeResource', 2),
        want: true,
      },
      earlier: {
        reason: 'the failure was reported for an earlier generation',
        cached: established('False', 'CRDNotApplied', 1),
        want: true,
      },
      unreported: {
        reason: 'nothing reported for the new generation yet',
        cached: established('True', 'WatchingCompositeResource', 1),
        want: true,
      },
    };
    for (const [name, { reason, cached, want }] of Object.entries(cases)) {
      cache.xrd = cached;
      expect(stale(), `${name}: ${reason}`).to.equal(want);
    }
  });
});
