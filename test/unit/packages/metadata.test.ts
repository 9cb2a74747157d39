import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import type { KubeClient } from '../../../src/kube/index.js';
import { MetadataReader, metadataCondition, type FunctionRevision } from '../../../src/packages/index.js';
import type { FetchedPackage, PackageMeta } from '../../../src/packages/xpkg/index.js';

const signal = new AbortController().signal;
const IMAGE = 'registry.example.org/org/function-x:v1';

function revision(pullPolicy?: string): FunctionRevision {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'FunctionRevision',
    metadata: { name: 'function-x-abc', uid: 'rev-uid' },
    spec: {
      desiredState: 'Active',
      image: IMAGE,
      revision: 1,
      ...(pullPolicy ? { packagePullPolicy: pullPolicy } : {}),
    },
  };
}

function fetched(meta: PackageMeta[]): FetchedPackage {
  return { meta, objects: [], source: IMAGE, version: 'v1', digest: 'sha256:0', resolvedRef: IMAGE };
}

function fn(spec: PackageMeta['spec'] = {}): PackageMeta {
  return { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Function', metadata: { name: 'function-x' }, spec };
}

/** A reader over a fake package client answering `answer`; `calls` counts its pulls. */
function reader(answer: () => FetchedPackage): { metadata: MetadataReader; clock: ManualClock; calls: () => number } {
  let calls = 0;
  const clock = new ManualClock(1_000);
  const packages = {
    get: (): Promise<FetchedPackage> => {
      calls += 1;
      return Promise.resolve().then(answer);
    },
  };
  const metadata = new MetadataReader({
    client: {} as KubeClient,
    packages,
    namespace: 'system',
    clock,
    retryMs: 60_000,
  });
  return { metadata, clock, calls: () => calls };
}

describe('packages/MetadataReader', () => {
  const cases: Record<string, { reason: string; answer: () => FetchedPackage; want: unknown }> = {
    declared: {
      reason: 'the capabilities the metadata declares, as written',
      answer: () => fetched([fn({ capabilities: ['composition', 'operation'] })]),
      want: { capabilities: ['composition', 'operation'] },
    },
    none: {
      reason: 'none declared is a composition function (pkgmetav1 Function.GetCapabilities)',
      answer: () => fetched([fn()]),
      want: { capabilities: ['composition'] },
    },
    notAFunction: {
      reason: 'a package of another kind says so',
      answer: () => fetched([{ ...fn(), kind: 'Configuration' }]),
      want: { error: 'package meta type is not Function' },
    },
    unreachable: {
      reason: 'a pull failure is the error, not a throw',
      answer: () => {
        throw new Error('cannot resolve xpkg.crossplane.io/x:v1 to digest: getaddrinfo ENOTFOUND');
      },
      want: { error: 'cannot resolve xpkg.crossplane.io/x:v1 to digest: getaddrinfo ENOTFOUND' },
    },
  };
  for (const [name, { reason, answer, want }] of Object.entries(cases)) {
    it(name, async () => {
      expect(await reader(answer).metadata.capabilities(revision(), signal), reason).to.deep.equal(want);
    });
  }

  it('reads a package once, and retries a failure only after retryMs', async () => {
    let fail = true;
    const { metadata, clock, calls } = reader(() => {
      if (fail) throw new Error('unreachable');
      return fetched([fn()]);
    });
    expect(await metadata.capabilities(revision(), signal)).to.have.property('error');
    fail = false;
    expect(await metadata.capabilities(revision(), signal), 'remembered').to.have.property('error');
    expect(calls()).to.equal(1);
    clock.advance(60_000);
    expect(await metadata.capabilities(revision(), signal)).to.deep.equal({ capabilities: ['composition'] });
    clock.advance(600_000);
    await metadata.capabilities(revision(), signal);
    expect(calls(), 'a success is kept').to.equal(2);
  });

  it('reads again after retryMs under packagePullPolicy Always', async () => {
    const { metadata, clock, calls } = reader(() => fetched([fn()]));
    await metadata.capabilities(revision('Always'), signal);
    clock.advance(60_000);
    await metadata.capabilities(revision('Always'), signal);
    expect(calls()).to.equal(2);
  });

  it('reports a failed read as PackageMetadata False, a read one as True', () => {
    expect(metadataCondition({ error: 'boom' })).to.deep.equal({
      type: 'PackageMetadata',
      status: 'False',
      reason: 'MetadataUnavailable',
      message: 'cannot read package metadata, capabilities unknown: boom',
    });
    expect(metadataCondition({ capabilities: [] })).to.include({ status: 'True', reason: 'MetadataRead' });
  });
});
