import { expect } from 'chai';
import pino from 'pino';
import {
  DEFINITION_FINALIZER,
  DefinitionController,
  type CompositeFactoryInput,
  type CompositeResourceDefinition,
  type RunningComposite,
} from '../../../src/definition/index.js';
import { ApiError, RecordingEventSink } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { CORE_KINDS, eventLines, FakeApiServer, FakeInformers, until } from '../fakes/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';

const XRD_API = 'apiextensions.crossplane.io/v1';
const XRD_PATH = '/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions/xapps.example.org';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/xapps.example.org';
const CLAIM_CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apps.example.org';
/** What the API server says of a CRD whose schema has `type: integr`. */
const REFUSAL =
  'CustomResourceDefinition.apiextensions.k8s.io "xapps.example.org" is invalid: spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Unsupported value: "integr"';

/** A 422 as the client throws it: the request line in front, the API server's Status as the body. */
function refused(method: string, path: string, message = REFUSAL): ApiError {
  return new ApiError(422, 'Invalid', `${method} ${path}: ${message}`, {
    kind: 'Status',
    status: 'Failure',
    reason: 'Invalid',
    code: 422,
    message,
  });
}

type Xrd = CompositeResourceDefinition & {
  metadata: { finalizers?: string[]; deletionTimestamp?: string; [key: string]: unknown };
  [key: string]: unknown;
};

function xrd(extra: Partial<CompositeResourceDefinition['spec']> = {}): Xrd {
  return {
    apiVersion: XRD_API,
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'xapps.example.org' },
    spec: {
      group: 'example.org',
      names: { kind: 'XApp', plural: 'xapps' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
        },
      ],
      ...extra,
    },
  };
}

/** A composite controller that records what the XRD controller does with it. */
class FakeComposite implements RunningComposite {
  readonly log: string[];
  constructor(
    readonly input: { name: string },
    log: string[],
    private readonly failStart = false,
  ) {
    this.log = log;
  }
  get name(): string {
    return this.input.name;
  }
  start(): Promise<void> {
    this.log.push(`start ${this.name}`);
    return this.failStart ? Promise.reject(new Error('the XR kind is not served yet')) : Promise.resolve();
  }
  stop(): Promise<void> {
    this.log.push(`stop ${this.name}`);
    return Promise.resolve();
  }
}

class XrdWorld {
  readonly server = new FakeApiServer([
    ...CORE_KINDS,
    {
      apiVersion: XRD_API,
      kind: 'CompositeResourceDefinition',
      plural: 'compositeresourcedefinitions',
      namespaced: false,
    },
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
    },
    { apiVersion: 'example.org/v1', kind: 'XApp', plural: 'xapps', namespaced: true },
  ]);
  readonly informers = new FakeInformers();
  readonly events = new RecordingEventSink();
  readonly log: string[] = [];
  allowed = true;
  failStart = false;
  /** The controller's log lines (warn and above), as JSON. */
  readonly logged: string[] = [];
  /** What each composite controller was built with, in order. */
  readonly inputs: CompositeFactoryInput[] = [];
  /** CRD paths the API server refuses to write, as it refuses an invalid schema. */
  readonly refusing = new Set<string>();
  readonly controller: DefinitionController;

  constructor() {
    this.informers.follow(this.server);
    // The API server's own doing: a CRD is Established once stored, and compositor may use the XR kind when allowed.
    this.server.control('CustomResourceDefinition', (crd) => {
      crd.status = { conditions: [{ type: 'Established', status: 'True' }] };
    });
    this.server.answer(
      (r) => r.path.endsWith('/selfsubjectaccessreviews'),
      () => ({ status: { allowed: this.allowed } }),
    );
    this.server.answer(
      (r) => r.method === 'PATCH' && this.refusing.has(r.path),
      (r) => {
        throw refused(r.method, r.path);
      },
    );
    this.controller = new DefinitionController({
      client: this.server.client,
      informers: this.informers.registry,
      events: this.events,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'warn' }, { write: (line: string) => this.logged.push(line) }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
      newComposite: (input) => {
        this.inputs.push(input);
        return new FakeComposite(input, this.log, this.failStart);
      },
      newClaim: (input) => new FakeComposite(input, this.log),
    });
  }

  stored(): Xrd | undefined {
    return this.server.get<Xrd>(XRD_API, 'CompositeResourceDefinition', 'xapps.example.org');
  }

  established(): string | undefined {
    type WithStatus = { status?: { conditions?: { type: string; status: string; reason: string }[] } } | undefined;
    const stored = this.stored() as WithStatus;
    const c = stored?.status?.conditions?.find((condition) => condition.type === 'Established');
    return c ? `${c.status} ${c.reason}` : undefined;
  }

  eventLines(): string[] {
    return eventLines(this.events);
  }

  condition(
    type: string,
  ): { status: string; reason: string; message?: string; observedGeneration?: number } | undefined {
    type WithStatus = { status?: { conditions?: { type: string; status: string; reason: string }[] } } | undefined;
    return (this.stored() as WithStatus)?.status?.conditions?.find((c) => c.type === type);
  }

  /** The reconciles that failed so far, by the error the queue logged. */
  failures(): string[] {
    return this.logged
      .map((line) => JSON.parse(line) as { msg: string; err?: string })
      .filter((entry) => entry.msg === 'reconcile failed')
      .map((entry) => entry.err ?? '');
  }

  /** Writes of one CRD attempted so far. */
  crdWrites(path: string): number {
    return this.server.requests.filter((r) => r.method === 'PATCH' && r.path === path).length;
  }
}

/** A v1 XRD that offers claims (LegacyCluster, spec.claimNames). */
function claimXrd(): Xrd {
  const definition = xrd({ claimNames: { kind: 'App', plural: 'apps' } });
  delete definition.spec.scope;
  return definition;
}

describe('definition/DefinitionController', () => {
  it('applies the XR CRD, starts the composite controller, and reports Established (first pass before start resolves)', async () => {
    const world = new XrdWorld();
    const stored = world.server.put(xrd());
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(stored);
    await world.controller.start();
    expect(world.log).to.deep.equal(['start composite/xapps.example.org']);
    expect(world.stored()?.metadata.finalizers).to.deep.equal([DEFINITION_FINALIZER]);
    const crd = world.server.get<{
      apiVersion: string;
      kind: string;
      metadata: { name: string; ownerReferences?: { uid: string }[] };
    }>('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'xapps.example.org');
    expect(crd?.metadata.ownerReferences?.[0]?.uid).to.equal(stored.metadata.uid);
    expect(world.established()).to.equal('True WatchingCompositeResource');
    expect(world.controller.controllers()).to.deep.equal(['composite/xapps.example.org']);
    await world.controller.stop(AbortSignal.timeout(5_000));
    expect(world.log).to.deep.equal(['start composite/xapps.example.org', 'stop composite/xapps.example.org']);
  });

  it('passes the composite controller its XR type and the XRD defaults', async () => {
    const world = new XrdWorld();
    let input: CompositeFactoryInput | undefined;
    const controller = new DefinitionController({
      client: world.server.client,
      informers: world.informers.registry,
      events: world.events,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
      newComposite: (given) => {
        input = given;
        return new FakeComposite(given, world.log);
      },
    });
    world.informers
      .informer(XRD_API, 'CompositeResourceDefinition')
      .seed(world.server.put(xrd({ defaultCompositionRef: { name: 'app' } })));
    await controller.start();
    expect(input?.xrType).to.deep.equal({
      apiVersion: 'example.org/v1',
      kind: 'XApp',
      group: 'example.org',
      namespaced: true,
      legacy: false,
    });
    expect(input?.xrd().defaultCompositionRef).to.deep.equal({ name: 'app' });
    await controller.stop(AbortSignal.timeout(5_000));
  });

  it('refuses an invalid XRD: Established False InvalidDefinition, a Warning, and no CRD', async () => {
    const world = new XrdWorld();
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd({ versions: [] })));
    await world.controller.start();
    expect(world.established()).to.match(/^False InvalidDefinition/);
    expect(world.eventLines()[0]).to.match(/^Warning RenderCRD: invalid CompositeResourceDefinition/);
    expect(world.server.requests.some((r) => r.path === CRD_PATH && r.method === 'PATCH')).to.equal(false);
    expect(world.log).to.deep.equal([]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('does not start the composite controller without rights on the XR kind: Established False MissingRBAC', async () => {
    const world = new XrdWorld();
    world.allowed = false;
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    expect(world.established()).to.match(/^False MissingRBAC/);
    expect(world.eventLines().filter((e) => e.startsWith('Warning EstablishComposite'))).to.have.length(1);
    expect(world.log).to.deep.equal([]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('restarts the composite controller when the XRD changes', async () => {
    const world = new XrdWorld();
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    await world.server.client.request('PATCH', XRD_PATH, {
      contentType: 'application/merge-patch+json',
      body: { spec: { defaultCompositionRef: { name: 'other' } } },
    });
    await until(() => world.log.length === 3, 'the controller restarted');
    expect(world.log).to.deep.equal([
      'start composite/xapps.example.org',
      'stop composite/xapps.example.org',
      'start composite/xapps.example.org',
    ]);
    expect(world.eventLines()).to.include(
      'Normal RestartComposite: XRD specification changed; restarting controller to apply updates',
    );
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('stops a composite controller whose start failed, so it releases what it took', async () => {
    const world = new XrdWorld();
    world.failStart = true;
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    expect(world.log).to.deep.equal(['start composite/xapps.example.org', 'stop composite/xapps.example.org']);
    expect(world.controller.controllers()).to.deep.equal([]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('on deletion deletes the XRs first, then stops the controller, deletes the CRD and lets the XRD go', async () => {
    const world = new XrdWorld();
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    world.server.put({ apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'a', namespace: 'default' } });
    world.server.watch(({ type, object }) => {
      if (type === 'delete') world.log.push(`delete ${object.kind} ${object.metadata.name}`);
    });
    await world.server.client.request('DELETE', XRD_PATH);
    await until(() => world.stored() === undefined, 'the XRD is gone');
    expect(world.log).to.deep.equal([
      'start composite/xapps.example.org',
      'delete XApp a',
      'stop composite/xapps.example.org',
      'delete CustomResourceDefinition xapps.example.org',
      'delete CompositeResourceDefinition xapps.example.org',
    ]);
    expect(world.eventLines()).to.include(
      'Normal TerminateComposite: waiting for defined composite resources to be deleted',
    );
    await world.controller.stop(AbortSignal.timeout(5_000));
  });
  it('reports a CRD the API server refuses: Established False with its message, one Warning event, and backs off', async () => {
    const world = new XrdWorld();
    world.refusing.add(CRD_PATH);
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    // The status write is a watch event that runs the XRD again at once: the same refusal records nothing new.
    await until(() => world.failures().length >= 2, 'the reconcile failed twice');
    const text = `cannot apply rendered composite resource CustomResourceDefinition: cannot create object: ${REFUSAL}`;
    expect(world.condition('Established')).to.deep.include({
      status: 'False',
      reason: 'CRDNotApplied',
      message: text,
      observedGeneration: world.stored()?.metadata.generation,
    });
    expect(world.eventLines()).to.deep.equal([`Warning EstablishComposite: ${text}`]);
    expect(world.failures()).to.deep.equal([text, text]);
    expect(world.crdWrites(CRD_PATH)).to.equal(2);
    expect(world.log).to.deep.equal([]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('keeps the CRD and the running controller when an edit is refused, and recovers when the XRD is fixed', async () => {
    const world = new XrdWorld();
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(xrd()));
    await world.controller.start();
    const before = world.server.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'xapps.example.org');

    world.refusing.add(CRD_PATH);
    await world.server.client.request('PATCH', XRD_PATH, {
      contentType: 'application/merge-patch+json',
      body: { spec: { versions: [{ ...xrd().spec.versions[0], additionalPrinterColumns: [{ name: 'X' }] }] } },
    });
    await until(() => world.condition('Established')?.reason === 'CRDNotApplied', 'the refusal was reported');
    const text = `cannot apply rendered composite resource CustomResourceDefinition: cannot update object: ${REFUSAL}`;
    expect(world.condition('Established')).to.deep.include({ status: 'False', message: text, observedGeneration: 2 });
    expect(world.eventLines().filter((e) => e.startsWith('Warning'))).to.deep.equal([
      `Warning EstablishComposite: ${text}`,
    ]);
    expect(world.server.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'xapps.example.org')).to.deep.equal(
      before,
    );
    // The controller of the last good generation keeps running and keeps reconciling: no restart is coming.
    expect(world.log).to.deep.equal(['start composite/xapps.example.org']);
    expect(world.inputs[0]?.stale(), 'the running controller pauses for a restart').to.equal(false);

    world.refusing.delete(CRD_PATH);
    await world.server.client.request('PATCH', XRD_PATH, {
      contentType: 'application/merge-patch+json',
      body: { spec: { versions: xrd().spec.versions } },
    });
    await until(() => world.established() === 'True WatchingCompositeResource', 'the fixed XRD is Established');
    expect(world.condition('Established')?.observedGeneration).to.equal(3);
    expect(world.log).to.deep.equal([
      'start composite/xapps.example.org',
      'stop composite/xapps.example.org',
      'start composite/xapps.example.org',
    ]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });

  it('reports a claim CRD the API server refuses on Offered with OfferClaim, keeping claims served by the stored one', async () => {
    const world = new XrdWorld();
    world.informers.informer(XRD_API, 'CompositeResourceDefinition').seed(world.server.put(claimXrd()));
    await world.controller.start();
    await until(() => world.condition('Offered')?.status === 'True', 'the XRD offers its claims');
    expect(world.condition('Offered')?.reason).to.equal('WatchingCompositeResourceClaim');
    expect(world.eventLines()).to.include(
      'Normal OfferClaim: Applied composite resource claim CustomResourceDefinition: apps.example.org',
    );

    world.refusing.add(CLAIM_CRD_PATH);
    await world.server.client.request('PATCH', XRD_PATH, {
      contentType: 'application/merge-patch+json',
      body: { spec: { versions: [{ ...xrd().spec.versions[0], additionalPrinterColumns: [{ name: 'X' }] }] } },
    });
    await until(() => world.condition('Offered')?.reason === 'CRDNotApplied', 'the claim CRD refusal was reported');
    const text = `cannot apply rendered composite resource claim CustomResourceDefinition: cannot update object: ${REFUSAL}`;
    expect(world.condition('Offered')).to.deep.include({ status: 'False', message: text, observedGeneration: 2 });
    expect(world.condition('Established')).to.deep.include({ status: 'True', observedGeneration: 2 });
    expect(world.eventLines().filter((e) => e.startsWith('Warning'))).to.deep.equal([`Warning OfferClaim: ${text}`]);
    // The composite controller restarted for the new generation; the claim controller runs again on the stored CRD.
    expect(world.log).to.deep.equal([
      'start composite/xapps.example.org',
      'start claim/apps.example.org',
      'stop claim/apps.example.org',
      'stop composite/xapps.example.org',
      'start composite/xapps.example.org',
      'start claim/apps.example.org',
    ]);
    await world.controller.stop(AbortSignal.timeout(5_000));
  });
});
