import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../src/base/index.js';
import { CompositionRevisionController } from '../../../src/definition/index.js';
import {
  COMPOSITION_NAME_LABEL,
  type Composition,
  type CompositionRevision,
} from '../../../src/definition/revisions.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers, until } from '../fakes/index.js';

// The CompositionRevision controller on the in-memory API server, whose writes reach the informers as watch events.

const API = 'apiextensions.crossplane.io/v1';

function world(): { server: FakeApiServer; informers: FakeInformers; controller: CompositionRevisionController } {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: API, kind: 'Composition', plural: 'compositions', namespaced: false },
    { apiVersion: API, kind: 'CompositionRevision', plural: 'compositionrevisions', namespaced: false },
  ]);
  const informers = new FakeInformers();
  informers.follow(server);
  const controller = new CompositionRevisionController({
    client: server.client,
    informers: informers.registry,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
  });
  return { server, informers, controller };
}

function composition(name: string, mode: string): Composition {
  return {
    apiVersion: API,
    kind: 'Composition',
    metadata: { name },
    spec: { compositeTypeRef: { apiVersion: 'example.org/v1', kind: 'XApp' }, mode },
  };
}

function revisionsOf(server: FakeApiServer, name: string): CompositionRevision[] {
  return server
    .list<CompositionRevision>(API, 'CompositionRevision')
    .filter((r) => r.metadata.labels?.[COMPOSITION_NAME_LABEL] === name);
}

describe('definition/CompositionRevisionController', () => {
  it('gives a Composition cached before it started its first revision, and a changed one the next', async () => {
    const { server, informers, controller } = world();
    const existing = server.put(composition('app', 'Pipeline'));
    informers.informer(API, 'Composition').seed(existing);
    await controller.start(new AbortController().signal);
    await until(() => revisionsOf(server, 'app').length === 1, 'the first revision is created');
    const changed = server.put({ ...existing, spec: { ...existing.spec, mode: 'Resources' } });
    informers.informer(API, 'Composition').update(changed);
    await until(() => revisionsOf(server, 'app').length === 2, 'the second revision is created');
    const numbers = revisionsOf(server, 'app')
      .map((r) => r.spec.revision)
      .sort();
    expect(numbers).to.deep.equal([1, 2]);
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('recreates a revision someone deleted: the event reaches its Composition through the label', async () => {
    const { server, informers, controller } = world();
    informers.informer(API, 'Composition').add(server.put(composition('app', 'Pipeline')));
    await controller.start(new AbortController().signal);
    await until(() => revisionsOf(server, 'app').length === 1, 'the first revision is created');
    const [revision] = revisionsOf(server, 'app');
    if (!revision) throw new Error('no revision');
    await server.client.request('DELETE', `/apis/${API}/compositionrevisions/${revision.metadata.name}`);
    await until(
      () => revisionsOf(server, 'app').some((r) => r.metadata.uid !== revision.metadata.uid),
      'the revision is created again',
    );
    await controller.stop(AbortSignal.timeout(1_000));
  });
});
