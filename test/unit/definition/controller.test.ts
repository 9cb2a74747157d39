import { expect } from 'chai';
import pino from 'pino';
import {
  DEFINITION_FINALIZER,
  DefinitionController,
  type CompositeFactoryInput,
  type CompositeResourceDefinition,
  type RunningComposite,
} from '../../../src/definition/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { CORE_KINDS, eventLines, FakeApiServer, FakeInformers, until } from '../fakes/index.js';

const XRD_API = 'apiextensions.crossplane.io/v1';
const XRD_PATH = '/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions/xapps.example.org';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/xapps.example.org';

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
    readonly input: CompositeFactoryInput,
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
    this.controller = new DefinitionController({
      client: this.server.client,
      informers: this.informers.registry,
      events: this.events,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
      maxReconcileRate: 100,
      newComposite: (input) => new FakeComposite(input, this.log, this.failStart),
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
      maxReconcileRate: 100,
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
});
