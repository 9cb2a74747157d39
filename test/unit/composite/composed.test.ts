import { expect } from 'chai';
import { renderComposed } from '../../../src/composite/index.js';
import {
  APPLIED_DIGEST_ANNOTATION,
  isApplied,
  isSettled,
  isSubset,
  restartDelayMs,
  withAppliedDigest,
  type Xr,
} from '../../../src/controller/index.js';

const xr: Xr = {
  apiVersion: 'example.org/v1',
  kind: 'XApp',
  metadata: {
    name: 'my-app',
    namespace: 'team-a',
    uid: '75e4a668-0000-4000-8000-000000000000',
    labels: { 'crossplane.io/composite': 'my-app' },
  },
};

describe('composed resources', () => {
  it('renders labels, the resource-name annotation, a controller reference and the deterministic name', () => {
    const object = renderComposed(
      { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } },
      { xr, resourceName: 'settings' },
    );
    expect(object.metadata.name).to.match(/^my-app-[0-9a-f]{12}$/);
    expect(object.metadata.labels).to.deep.equal({ 'crossplane.io/composite': 'my-app' });
    expect(object.metadata.annotations).to.deep.equal({ 'crossplane.io/composition-resource-name': 'settings' });
    expect(object.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'example.org/v1',
        kind: 'XApp',
        name: 'my-app',
        uid: xr.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const again = renderComposed({ apiVersion: 'v1', kind: 'ConfigMap' }, { xr, resourceName: 'settings' });
    expect(again.metadata.name, 'the same XR and resource name give the same name').to.equal(object.metadata.name);
  });

  it('keeps the name of what exists and refuses another controller', () => {
    const observed = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'team-a' } };
    const object = renderComposed(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'renamed' } },
      { xr, resourceName: 'settings', observed },
    );
    expect(object.metadata.name).to.equal('kept');
    expect(() =>
      renderComposed(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Other', name: 'o', uid: 'x', controller: true }] },
        },
        { xr, resourceName: 'settings' },
      ),
    ).to.throw(/already controlled by Other "o"/);
    expect(() =>
      renderComposed(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } },
        { xr, resourceName: 'x' },
      ),
    ).to.throw(/invalid name/);
  });

  it('skips the apply only when everything desired is observed and was applied from the same desired object', () => {
    const desired = withAppliedDigest(
      renderComposed({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } }, { xr, resourceName: 's' }),
    );
    const observed = structuredClone(desired) as typeof desired & { data: Record<string, string> };
    observed.metadata.resourceVersion = '7';
    observed.data.extra = 'set by someone else';
    expect(isApplied(desired, observed)).to.equal(true);
    const drifted = structuredClone(observed);
    drifted.data.a = '2';
    expect(isApplied(desired, drifted), 'drift of a field we own').to.equal(false);
    const fewer = withAppliedDigest(renderComposed({ apiVersion: 'v1', kind: 'ConfigMap' }, { xr, resourceName: 's' }));
    expect(fewer.metadata.annotations?.[APPLIED_DIGEST_ANNOTATION]).to.not.equal(
      desired.metadata.annotations?.[APPLIED_DIGEST_ANNOTATION],
    );
    expect(isApplied(fewer, observed), 'a field the pipeline dropped must be removed by an apply').to.equal(false);
    expect(isApplied(desired, undefined)).to.equal(false);
  });

  it('compares lists item by item and ignores fields only the server has', () => {
    expect(isSubset({ a: [{ x: 1 }] }, { a: [{ x: 1, y: 2 }], b: 3 })).to.equal(true);
    expect(isSubset({ a: [{ x: 1 }] }, { a: [{ x: 1 }, { x: 2 }] })).to.equal(false);
    expect(isSubset({ a: null }, {})).to.equal(true);
  });
});

describe('restart spread', () => {
  const settled: Xr = {
    ...xr,
    metadata: { ...xr.metadata, generation: 3 },
    status: {
      conditions: [
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', observedGeneration: 3 },
        { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 3 },
      ],
    },
  };

  it('delays settled XRs into the second poll interval after the restart; everything else goes now', () => {
    expect(isSettled(settled)).to.equal(true);
    expect(restartDelayMs(settled, 60_000, () => 0)).to.equal(60_000);
    expect(restartDelayMs(settled, 60_000, () => 0.999)).to.be.closeTo(119_940, 1);
    const changed = { ...settled, metadata: { ...settled.metadata, generation: 4 } };
    expect(restartDelayMs(changed, 60_000)).to.equal(undefined);
    const requested = {
      ...settled,
      metadata: { ...settled.metadata, annotations: { 'crossplane.io/reconcile-requested-at': 'now' } },
    };
    expect(restartDelayMs(requested, 60_000)).to.equal(undefined);
  });
});
