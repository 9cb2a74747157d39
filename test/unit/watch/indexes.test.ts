import { expect } from 'chai';
import {
  composedRefKey,
  compositionRevisionIndex,
  controllerOwnerKeys,
  resourceRefsIndex,
} from '../../../src/watch/index.js';

describe('watch/indexes', () => {
  const modern = {
    apiVersion: 'example.org/v1',
    kind: 'XApp',
    metadata: { name: 'app', namespace: 'team-a' },
    spec: {
      crossplane: {
        compositionRevisionRef: { name: 'app-abc123' },
        resourceRefs: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'app-1' },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'other' },
          { apiVersion: 'v1', kind: 'Service' },
        ],
      },
    },
  };

  it('indexes a namespaced XR by the composed resources it references, all in its own namespace', () => {
    // A ref naming another namespace (written by whoever may edit the XR) is read in the XR's, so it maps there.
    expect(resourceRefsIndex(modern)).to.deep.equal([
      composedRefKey({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'app-1', namespace: 'team-a' }),
      composedRefKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'team-a' }),
    ]);
  });

  it('indexes a cluster XR by its refs with the namespace each names', () => {
    const cluster = { ...modern, metadata: { name: 'app' } };
    expect(resourceRefsIndex(cluster)).to.deep.equal([
      composedRefKey({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'app-1' }),
      composedRefKey({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'other' }),
    ]);
  });

  it('ignores the version in a composed reference, so an API version bump still maps', () => {
    expect(composedRefKey({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' })).to.equal(
      composedRefKey({ apiVersion: 'apps/v1beta2', kind: 'Deployment', name: 'x' }),
    );
  });

  it('reads legacy XRs, whose machinery sits directly under spec', () => {
    const legacy = {
      apiVersion: 'example.org/v1',
      kind: 'XLegacy',
      metadata: { name: 'old' },
      spec: {
        compositionRevisionRef: { name: 'rev-1' },
        resourceRefs: [{ apiVersion: 'v1', kind: 'Secret', name: 's' }],
      },
    };
    expect(compositionRevisionIndex(legacy)).to.deep.equal(['rev-1']);
    expect(resourceRefsIndex(legacy)).to.deep.equal(['/Secret//s']);
    expect(compositionRevisionIndex(modern)).to.deep.equal(['app-abc123']);
  });

  it('maps a composed resource to its controlling XR of the right kind only', () => {
    const composed = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        namespace: 'team-a',
        ownerReferences: [
          { apiVersion: 'example.org/v1', kind: 'XApp', name: 'app', uid: '1', controller: true },
          { apiVersion: 'example.org/v1', kind: 'XApp', name: 'not-controller', uid: '2' },
          { apiVersion: 'other.org/v1', kind: 'XApp', name: 'other-group', uid: '3', controller: true },
        ],
      },
    };
    expect(controllerOwnerKeys(composed, { group: 'example.org', kind: 'XApp', namespaced: true })).to.deep.equal([
      'team-a/app',
    ]);
    expect(controllerOwnerKeys(composed, { group: 'example.org', kind: 'XApp', namespaced: false })).to.deep.equal([
      'app',
    ]);
  });
});
