import { expect } from 'chai';
import {
  bestMatch,
  ImageConfigError,
  ImageConfigStore,
  matchesAny,
  resolveImage,
  resolveSource,
  verificationCondition,
  type ImageConfig,
  type ImageResolution,
} from '../../../../src/packages/imageconfig/index.js';
import { FakeApiServer } from '../../fakes/index.js';

function config(name: string, prefixes: string[], spec: NonNullable<ImageConfig['spec']> = {}): ImageConfig {
  return { metadata: { name }, spec: { matchImages: prefixes.map((prefix) => ({ type: 'Prefix', prefix })), ...spec } };
}

const secret = (name: string): NonNullable<ImageConfig['spec']> => ({
  registry: { authentication: { pullSecretRef: { name } } },
});
const rewriteTo = (prefix: string): NonNullable<ImageConfig['spec']> => ({ rewriteImage: { prefix } });
const cosign = { verification: { provider: 'Cosign', cosign: { authorities: [] } } };

describe('packages/imageconfig', () => {
  describe('bestMatch', () => {
    const cases: Record<string, { reason: string; configs: ImageConfig[]; image: string; want: string | undefined }> = {
      longest: {
        reason: 'the longest matching prefix wins, whatever the order',
        configs: [
          config('registry', ['xpkg.example.org/'], secret('a')),
          config('org', ['xpkg.example.org/org/'], secret('b')),
        ],
        image: 'xpkg.example.org/org/app:v1',
        want: 'org',
      },
      prefixOfAnyRule: {
        reason: 'any one rule of an ImageConfig matches it',
        configs: [config('two', ['other.example.org/', 'xpkg.example.org/org'], secret('a'))],
        image: 'xpkg.example.org/org/app:v1',
        want: 'two',
      },
      purpose: {
        reason: 'an ImageConfig that does not configure the purpose is not considered, however long its prefix',
        configs: [
          config('rewrite-only', ['xpkg.example.org/org/app'], rewriteTo('mirror.example.org/')),
          config('secret', ['xpkg.example.org/'], secret('a')),
        ],
        image: 'xpkg.example.org/org/app:v1',
        want: 'secret',
      },
      none: {
        reason: 'no prefix matching is no match',
        configs: [config('other', ['other.example.org/'], secret('a'))],
        image: 'xpkg.example.org/org/app:v1',
        want: undefined,
      },
      emptySecret: {
        reason: 'an empty pullSecretRef name configures no pull secret',
        configs: [config('empty', ['xpkg.example.org/'], secret(''))],
        image: 'xpkg.example.org/org/app:v1',
        want: undefined,
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        expect(bestMatch(c.configs, c.image, 'pullSecret')?.metadata.name, c.reason).to.equal(c.want);
      });
    }
  });

  describe('resolveImage', () => {
    const cases: Record<
      string,
      { reason: string; configs: ImageConfig[]; ref: string; want: Omit<ImageResolution, 'ref'> }
    > = {
      nothing: {
        reason: 'no ImageConfig leaves the reference as it is',
        configs: [],
        ref: 'xpkg.example.org/org/app:v1',
        want: { resolvedRef: 'xpkg.example.org/org/app:v1', applied: [] },
      },
      rewrite: {
        reason: "the winner's longest matching prefix is replaced",
        configs: [
          config('mirror', ['xpkg.example.org/', 'xpkg.example.org/org/'], rewriteTo('mirror.example.org/copy/')),
        ],
        ref: 'xpkg.example.org/org/app:v1',
        want: {
          resolvedRef: 'mirror.example.org/copy/app:v1',
          applied: [{ name: 'mirror', reason: 'RewriteImage' }],
        },
      },
      secretOfRewritten: {
        reason: 'the pull secret is looked up for the rewritten reference, and recorded after the rewrite',
        configs: [
          config('mirror', ['xpkg.example.org/'], rewriteTo('mirror.example.org/')),
          config('original', ['xpkg.example.org/'], secret('original-creds')),
          config('mirror-creds', ['mirror.example.org/'], secret('mirror-creds')),
        ],
        ref: 'xpkg.example.org/org/app:v1',
        want: {
          resolvedRef: 'mirror.example.org/org/app:v1',
          pullSecret: 'mirror-creds',
          applied: [
            { name: 'mirror', reason: 'RewriteImage' },
            { name: 'mirror-creds', reason: 'SetImagePullSecret' },
          ],
        },
      },
      runtime: {
        reason: "a runtime ImageConfig's config is given for the rewritten reference, and not recorded with the pull's",
        configs: [
          config('mirror', ['xpkg.example.org/'], rewriteTo('mirror.example.org/')),
          config('tuned', ['mirror.example.org/org/'], { runtime: { configRef: { name: 'big' } } }),
          config('ignored', ['xpkg.example.org/'], { runtime: { configRef: { name: 'small' } } }),
        ],
        ref: 'xpkg.example.org/org/app:v1',
        want: {
          resolvedRef: 'mirror.example.org/org/app:v1',
          runtimeConfig: { imageConfig: 'tuned', name: 'big' },
          applied: [{ name: 'mirror', reason: 'RewriteImage' }],
        },
      },
      verification: {
        reason: 'a verification ImageConfig is recorded as VerifyImage, as upstream without its alpha flag',
        configs: [config('signed', ['xpkg.example.org/'], cosign)],
        ref: 'xpkg.example.org/org/app:v1',
        want: {
          resolvedRef: 'xpkg.example.org/org/app:v1',
          verification: 'signed',
          applied: [{ name: 'signed', reason: 'VerifyImage' }],
        },
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        expect(resolveImage(c.configs, c.ref), c.reason).to.deep.equal({ ref: c.ref, ...c.want });
      });
    }

    it('refuses a rewrite without a prefix and a verification without cosign, with upstream messages', () => {
      const ref = 'xpkg.example.org/org/app:v1';
      expect(() => resolveImage([config('bad', ['xpkg.example.org/'], rewriteTo(''))], ref))
        .to.throw(ImageConfigError)
        .with.property('message', 'cannot get image rewrite config: rewrite prefix is missing');
      const noCosign = config('bad', ['xpkg.example.org/'], { verification: { provider: 'Cosign' } });
      expect(() => resolveImage([noCosign], ref))
        .to.throw(ImageConfigError)
        .with.property('message', 'cannot get image verification config: cosign verification config is missing');
    });

    it('rewrites a source for a tag listing without recording it', () => {
      const configs = [config('mirror', ['xpkg.example.org/org'], rewriteTo('mirror.example.org/org'))];
      expect(resolveSource(configs, 'xpkg.example.org/org/app')).to.equal('mirror.example.org/org/app');
    });
  });

  it('matchesAny: a package concerns an ImageConfig through its source or its resolved reference', () => {
    const ic = config('mirror', ['mirror.example.org/'], rewriteTo('x/'));
    expect(matchesAny(ic, ['xpkg.example.org/org/app:v1', 'mirror.example.org/org/app:v1'])).to.equal(true);
    expect(matchesAny(ic, ['xpkg.example.org/org/app:v1', undefined])).to.equal(false);
  });

  it('verificationCondition: says the package was not verified; switches to plain skipped once nothing asks', () => {
    const asked = verificationCondition({ verification: 'signed' }, undefined);
    expect(asked).to.include({ type: 'Verified', status: 'True', reason: 'SignatureVerificationSkipped' });
    expect(asked?.message).to.contain('"signed"');
    expect(verificationCondition({}, undefined)).to.equal(undefined);
    expect(verificationCondition({}, asked ? [asked] : [])).to.deep.equal({
      type: 'Verified',
      status: 'True',
      reason: 'SignatureVerificationSkipped',
    });
  });

  describe('ImageConfigStore', () => {
    it('reads the cache when there is one, else lists; a server without the CRD has none', async () => {
      const signal = new AbortController().signal;
      const cached = [config('cached', ['a.example.org/'])];
      const fromCache = new ImageConfigStore({
        client: new FakeApiServer().client,
        cache: () => ({ list: () => cached as never }),
      });
      expect(await fromCache.list(signal)).to.equal(cached);
      const server = new FakeApiServer([
        { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig', plural: 'imageconfigs', namespaced: false },
      ]);
      server.put({
        apiVersion: 'pkg.crossplane.io/v1beta1',
        kind: 'ImageConfig',
        metadata: { name: 'listed' },
        spec: config('listed', ['b/']).spec,
      });
      const listed = await new ImageConfigStore({ client: server.client, cache: () => undefined }).list(signal);
      expect(listed.map((c) => c.metadata.name)).to.deep.equal(['listed']);
      expect(await new ImageConfigStore({ client: new FakeApiServer().client }).list(signal)).to.deep.equal([]);
    });
  });
});
