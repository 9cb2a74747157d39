import { expect } from 'chai';
import type { ImageResolution } from '../../../src/packages/imageconfig/index.js';
import { packageImageFields, revisionImageStatus } from '../../../src/packages/imageStatus.js';
import type { FunctionPackage, FunctionRevision } from '../../../src/packages/types.js';

// What a Function's and its revision's status say of the ImageConfigs: the rewritten reference, the ImageConfigs used
// (the runtime's ConfigureRuntime on the revision only, after the pull's), stale lists removed, and Verified.
const REF = 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0';
const MIRROR = 'mirror.example/crossplane-contrib/function-auto-ready:v0.5.0';

function fn(status?: FunctionPackage['status']): FunctionPackage {
  return { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', metadata: { name: 'fn' }, status };
}

function revision(status?: FunctionRevision['status']): FunctionRevision {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'FunctionRevision',
    metadata: { name: 'fn-a' },
    spec: { desiredState: 'Active', image: REF, revision: 1 },
    status,
  };
}

const rewritten: ImageResolution = {
  ref: REF,
  resolvedRef: MIRROR,
  applied: [{ name: 'mirror', reason: 'RewriteImage' }],
  runtimeConfig: { imageConfig: 'runtime', name: 'debug' },
};
const plain: ImageResolution = { ref: REF, resolvedRef: REF, applied: [] };

describe('packages/imageStatus', () => {
  const packageCases: Record<string, { reason: string; fn: FunctionPackage; image: ImageResolution; want: object }> = {
    rewritten: {
      reason: "the Function records the pull's ImageConfigs, not the runtime's",
      fn: fn(),
      image: rewritten,
      want: { resolvedPackage: MIRROR, appliedImageConfigRefs: [{ name: 'mirror', reason: 'RewriteImage' }] },
    },
    none: { reason: 'no ImageConfig and none before: no list', fn: fn(), image: plain, want: { resolvedPackage: REF } },
    stale: {
      reason: 'a list written before is removed',
      fn: fn({ appliedImageConfigRefs: [{ name: 'gone', reason: 'RewriteImage' }] }),
      image: plain,
      want: { resolvedPackage: REF, appliedImageConfigRefs: null },
    },
  };
  for (const [name, { reason, fn, image, want }] of Object.entries(packageCases)) {
    it(`packageImageFields: ${name}`, () => {
      expect(packageImageFields(fn, image), reason).to.deep.equal(want);
    });
  }

  it("revisionImageStatus: the revision's list ends with the runtime's ImageConfig", () => {
    expect(revisionImageStatus(revision(), rewritten)).to.deep.equal({
      fields: {
        resolvedImage: MIRROR,
        appliedImageConfigRefs: [
          { name: 'mirror', reason: 'RewriteImage' },
          { name: 'runtime', reason: 'ConfigureRuntime' },
        ],
      },
      conditions: [],
    });
  });

  it('revisionImageStatus: says verification was skipped when an ImageConfig asks for it, and keeps saying so', () => {
    const verifying = { ...plain, verification: 'signed' };
    const [asked] = revisionImageStatus(revision(), verifying).conditions;
    expect(asked).to.include({ type: 'Verified', status: 'True', reason: 'SignatureVerificationSkipped' });
    expect(asked?.message).to.contain('"signed"');
    const after = revisionImageStatus(revision({ conditions: asked ? [asked] : [] }), plain);
    expect(after.conditions).to.deep.equal([
      { type: 'Verified', status: 'True', reason: 'SignatureVerificationSkipped' },
    ]);
    expect(revisionImageStatus(revision(), plain).conditions, 'never asked: no condition').to.deep.equal([]);
  });
});
