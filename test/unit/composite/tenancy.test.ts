import { expect } from 'chai';
import type { ComposedObject } from '../../../src/composite/composed.js';
import { controlConflict, observedOf } from '../../../src/composite/tenancy.js';
import type { Condition, Xr } from '../../../src/controller/index.js';
import type { JsonObject, RunFunctionResponse } from '../../../src/functions/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { rejection } from '../fakes/index.js';
import { World, XR_API_VERSION } from './world.js';

// What a namespaced XR, whose spec (resourceRefs included) its tenant edits and whose functions name composed
// resources after that spec, can make compositor write, adopt or delete (docs/crossplane-differences.md#tenancy).

const ANNOTATION = 'crossplane.io/composition-resource-name';
const CM_PATH = '/api/v1/namespaces/default/configmaps';
const OTHER = { apiVersion: XR_API_VERSION, kind: 'XApp', name: 'other', uid: 'uid-other', controller: true };

type Composed = KubeObject & {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    annotations?: Record<string, string>;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
};

/** A function response desiring each object as given (names, namespaces and kinds chosen by the "function"). */
function desiringObjects(resources: Record<string, JsonObject>): RunFunctionResponse {
  const desired: Record<string, { resource: JsonObject; ready: 'READY_TRUE' }> = {};
  for (const [name, resource] of Object.entries(resources)) desired[name] = { resource, ready: 'READY_TRUE' };
  return { desired: { resources: desired } };
}

function configMap(name: string | undefined, data: Record<string, string>, namespace?: string): JsonObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data } as JsonObject;
}

/** An object on the server as someone else left it: an annotation, a controller, or neither. */
function existing(
  name: string,
  options: { namespace?: string; annotation?: string; controller?: typeof OTHER; apiVersion?: string; kind?: string },
): Composed {
  return {
    apiVersion: options.apiVersion ?? 'v1',
    kind: options.kind ?? 'ConfigMap',
    metadata: {
      name,
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.annotation === undefined ? {} : { annotations: { [ANNOTATION]: options.annotation } }),
      ...(options.controller === undefined ? {} : { ownerReferences: [options.controller] }),
    },
    data: { owner: 'someone else' },
  };
}

function synced(world: World): string {
  const c: Condition | undefined = world.xr()?.status?.conditions?.find((x) => x.type === 'Synced');
  return c ? `${c.status} ${c.reason}: ${c.message ?? ''}` : 'none';
}

function deletes(world: World): string[] {
  return world.writes().filter((w) => w.startsWith('DELETE'));
}

/** The XR "default/app" with `refs` as its resourceRefs, as its tenant may write them. */
function xrWithRefs(world: World, refs: object[]): Xr {
  return world.createXr({
    spec: {
      crossplane: { compositionRef: { name: 'app' }, compositionRevisionRef: { name: 'app-1' }, resourceRefs: refs },
    },
  });
}

describe('composite tenancy', () => {
  describe('controlConflict', () => {
    const xr = { apiVersion: XR_API_VERSION, kind: 'XApp', metadata: { name: 'app', uid: 'uid-app' } } as Xr;
    const cases: Record<string, { object: ComposedObject | undefined; want: string | undefined }> = {
      'nothing there yet': { object: undefined, want: undefined },
      'no controller (adopted, as upstream)': { object: existing('a', {}), want: undefined },
      'controlled by this XR': {
        object: existing('a', { controller: { ...OTHER, uid: 'uid-app' } }),
        want: undefined,
      },
      'controlled by another XR': {
        object: existing('shared', { namespace: 'team-a', controller: OTHER }),
        want: 'cannot apply composed resource "db" (a ConfigMap named shared in namespace team-a): it is controlled by XApp "other"',
      },
    };
    for (const [reason, { object, want }] of Object.entries(cases)) {
      it(reason, () => {
        expect(controlConflict(xr, 'db', object), reason).to.equal(want);
      });
    }

    it('observes the object the XR controls when an annotation is forged on another', () => {
      const ours = existing('real', { controller: { ...OTHER, uid: 'uid-app' } });
      const forged = existing('decoy', {});
      expect(observedOf(xr, ours, forged)).to.equal(ours);
      expect(observedOf(xr, forged, ours)).to.equal(ours);
      expect(observedOf(xr, forged, existing('decoy-2', {}))).to.equal(forged);
    });
  });

  describe('(a) a desired resource in another namespace', () => {
    it('is composed in the XR namespace with one NamespaceOverridden Warning, nothing written elsewhere', async () => {
      const world = new World();
      world.runner.respond = () => desiringObjects({ cm: configMap(undefined, { a: '1' }, 'kube-system') });
      world.createXr();
      await world.reconcile();
      const written = world.server.list<Composed>('v1', 'ConfigMap');
      expect(written.map((o) => o.metadata.namespace)).to.deep.equal(['default']);
      expect(world.writes().filter((w) => w.includes('/namespaces/kube-system/'))).to.deep.equal([]);
      // Once, at creation: later passes keep the namespace the resource exists in, as upstream.
      expect(world.eventLines().filter((e) => e.includes('NamespaceOverridden'))).to.deep.equal([
        'Warning NamespaceOverridden: cannot create composed resource "cm" in namespace "kube-system", using XR namespace "default" instead',
      ]);
      expect(synced(world)).to.equal('True ReconcileSuccess: ');
    });
  });

  describe('(b) a cluster-scoped kind from a namespaced XR', () => {
    const cases: Record<string, { namespace?: string }> = {
      'without a namespace': {},
      'with a namespace set by the function': { namespace: 'default' },
    };
    for (const [reason, { namespace }] of Object.entries(cases)) {
      it(`fails the reconcile, applies nothing and deletes nothing (${reason})`, async () => {
        const world = new World();
        world.runner.respond = () => desiringObjects({ cm: configMap(undefined, {}) });
        world.createXr();
        await world.converge();
        world.runner.respond = () =>
          desiringObjects({
            cluster: {
              apiVersion: 'example.org/v1',
              kind: 'Cluster',
              metadata: { name: 'big', ...(namespace ? { namespace } : {}) },
            },
            plain: configMap(undefined, {}),
          });
        await rejection(world.reconcile());
        const message =
          'cannot compose resources: cannot apply cluster scoped composed resource "cluster" (a Cluster named big) for a namespaced composite resource.';
        expect(synced(world)).to.equal(`False ReconcileError: ${message}`);
        expect(world.eventLines()).to.deep.equal([`Warning ComposeResources: ${message}`]);
        expect(world.server.list('example.org/v1', 'Cluster')).to.deep.equal([]);
        expect(
          world.writes().filter((w) => !w.endsWith('/status [apiextensions.crossplane.io/composite]')),
        ).to.deep.equal([]);
        expect(world.server.list('v1', 'ConfigMap'), 'the resource composed before survives').to.have.length(1);
      });
    }
  });

  describe('(c) a desired name that another XR controls', () => {
    const cases: Record<string, { realtime: boolean }> = {
      'read from the cache (realtime)': { realtime: true },
      'read from the API server (polling)': { realtime: false },
    };
    for (const [reason, { realtime }] of Object.entries(cases)) {
      it(`is refused without a write, the other resources composed (${reason})`, async () => {
        const world = new World({ realtime });
        const victim = world.server.put(
          existing('shared', { namespace: 'default', annotation: 'cm', controller: OTHER }),
        );
        world.runner.respond = () =>
          desiringObjects({ named: configMap('shared', { mine: 'yes' }), plain: configMap(undefined, { a: '1' }) });
        world.createXr();
        await world.reconcile();
        expect(world.writes().filter((w) => w.startsWith(`PATCH ${CM_PATH}/shared`))).to.deep.equal([]);
        expect(world.server.get('v1', 'ConfigMap', 'shared', 'default')).to.deep.equal(victim);
        expect(world.eventLines()).to.include(
          'Warning ComposeResources: cannot apply composed resource "named" (a ConfigMap named shared in namespace default): it is controlled by XApp "other"',
        );
        expect(synced(world)).to.equal('False ReconcileError: Unsynced resources: named');
        expect(world.server.list('v1', 'ConfigMap')).to.have.length(2);

        // Refused again on each look, it writes nothing more and asks for no quick follow-up.
        world.sync();
        await world.reconcile();
        world.sync();
        const result = await world.reconcile();
        expect(world.writes()).to.deep.equal([]);
        expect(result.requeueAfterMs === 250, 'no 250ms follow-up for a write that never happens').to.equal(false);
        expect(world.server.get('v1', 'ConfigMap', 'shared', 'default')).to.deep.equal(victim);
      });
    }
  });

  describe('(d) a desired name that exists with no controller', () => {
    it('is adopted, as upstream: applied with this XR as its controller', async () => {
      const world = new World();
      world.server.put(existing('loose', { namespace: 'default' }));
      world.runner.respond = () => desiringObjects({ named: configMap('loose', { mine: 'yes' }) });
      const xr = world.createXr();
      await world.reconcile();
      const adopted = world.server.get<Composed>('v1', 'ConfigMap', 'loose', 'default');
      expect(adopted?.data).to.deep.include({ mine: 'yes' });
      expect(adopted?.metadata.ownerReferences?.map((r) => r.uid)).to.deep.equal([xr.metadata.uid]);
      expect(synced(world)).to.equal('True ReconcileSuccess: ');
    });
  });

  describe('(e) resourceRefs written by the tenant', () => {
    it('never deletes, observes or applies what another controls, another namespace holds, or is cluster-scoped', async () => {
      const world = new World();
      const put = (object: Composed): Composed => world.server.put(object);
      const stranger = put(existing('victim', { namespace: 'default', annotation: 'cm', controller: OTHER }));
      const unowned = put(existing('unowned', { namespace: 'default', annotation: 'gone' }));
      const elsewhere = put(existing('elsewhere', { namespace: 'team-b', annotation: 'gone-too' }));
      const xr = xrWithRefs(world, [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'victim' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'unowned' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'elsewhere', namespace: 'team-b' },
        { apiVersion: 'example.org/v1', kind: 'Cluster', name: 'big' },
      ]);
      // A cluster-scoped object claiming this XR as its controller: a namespaced XR never composes one.
      const big = put(
        existing('big', {
          apiVersion: 'example.org/v1',
          kind: 'Cluster',
          annotation: 'old',
          controller: { ...OTHER, name: 'app', uid: xr.metadata.uid ?? '' },
        }),
      );
      world.runner.respond = () => desiringObjects({ cm: configMap(undefined, { a: '1' }) });
      await world.reconcile();

      expect(deletes(world)).to.deep.equal([]);
      expect(world.server.get('v1', 'ConfigMap', 'victim', 'default')).to.deep.equal(stranger);
      expect(world.server.get('v1', 'ConfigMap', 'unowned', 'default')).to.deep.equal(unowned);
      expect(world.server.get('v1', 'ConfigMap', 'elsewhere', 'team-b')).to.deep.equal(elsewhere);
      expect(world.server.get('example.org/v1', 'Cluster', 'big')).to.deep.equal(big);
      // As upstream, an unowned object is observed (never deleted while unowned); the others are not seen at all.
      expect(Object.keys(world.runner.calls[0]?.request.observed?.resources ?? {})).to.deep.equal(['gone']);
      const refs = (world.xr()?.spec?.crossplane as { resourceRefs: { name: string }[] }).resourceRefs;
      expect(
        refs.map((r) => r.name),
        'the refs are the desired resources again',
      ).to.have.length(1);
      expect(refs[0]?.name).to.match(/^app-[0-9a-f]{12}$/);
    });

    it('deletes none of them when the XR is deleted', async () => {
      const world = new World();
      world.server.put(existing('victim', { namespace: 'default', annotation: 'cm', controller: OTHER }));
      world.server.put(existing('unowned', { namespace: 'default', annotation: 'gone' }));
      xrWithRefs(world, [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'victim' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'unowned' },
      ]);
      world.xrs.set({ ...(world.xr() as Xr), metadata: { ...(world.xr() as Xr).metadata, deletionTimestamp: 'now' } });
      await world.reconcile();
      expect(deletes(world)).to.deep.equal([]);
      expect(world.server.list('v1', 'ConfigMap')).to.have.length(2);
    });
  });

  describe('(f) the composition-resource-name annotation forged on another object', () => {
    it('never displaces the resource the XR composed: the forged object is neither adopted nor written', async () => {
      const world = new World();
      world.runner.respond = () => desiringObjects({ cm: configMap(undefined, { a: '1' }) });
      world.createXr();
      await world.converge();
      const real = world.server.list<Composed>('v1', 'ConfigMap')[0];
      if (!real) throw new Error('no composed ConfigMap');
      const decoy = world.server.put(existing('decoy', { namespace: 'default', annotation: 'cm' }));
      const refs = [
        { apiVersion: 'v1', kind: 'ConfigMap', name: real.metadata.name },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'decoy' },
      ];
      const stored = world.xr() as Xr;
      const crossplane = stored.spec?.crossplane as Record<string, unknown>;
      world.server.put({ ...stored, spec: { ...stored.spec, crossplane: { ...crossplane, resourceRefs: refs } } });
      world.sync();
      world.runner.calls.length = 0;
      world.runner.respond = () => desiringObjects({ cm: configMap(undefined, { a: '2' }) });
      await world.reconcile();
      const observed = world.runner.calls[0]?.request.observed?.resources?.cm?.resource as Composed | undefined;
      expect(observed?.metadata.name).to.equal(real.metadata.name);
      expect(world.server.get('v1', 'ConfigMap', 'decoy', 'default')).to.deep.equal(decoy);
      expect(world.server.get<Composed>('v1', 'ConfigMap', real.metadata.name, 'default')?.data).to.deep.equal({
        a: '2',
      });
      expect(deletes(world)).to.deep.equal([]);
    });
  });
});
