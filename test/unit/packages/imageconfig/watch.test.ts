import { expect } from 'chai';
import { imageConfigKeys, type ImageConfig } from '../../../../src/packages/imageconfig/index.js';
import type { WatchEvent } from '../../../../src/watch/index.js';

interface Pkg {
  metadata: { name: string };
  spec: { package: string };
  status?: { resolvedPackage?: string };
}

const packages: Pkg[] = [
  { metadata: { name: 'a' }, spec: { package: 'xpkg.example.org/org/a:v1' } },
  {
    metadata: { name: 'b' },
    spec: { package: 'xpkg.example.org/other/b:v1' },
    status: { resolvedPackage: 'mirror.example.org/b:v1' },
  },
];

function ic(prefixes: string[], spec: Record<string, unknown>): ImageConfig {
  return {
    apiVersion: 'pkg.crossplane.io/v1beta1',
    kind: 'ImageConfig',
    metadata: { name: 'ic' },
    spec: { matchImages: prefixes.map((prefix) => ({ prefix })), ...spec },
  };
}

const rewrite = { rewriteImage: { prefix: 'x/' } };
const event = (type: 'add' | 'delete' | 'resync', object: ImageConfig): WatchEvent =>
  ({ type, object }) as unknown as WatchEvent;

describe('packages/imageconfig imageConfigKeys', () => {
  const images = (p: Pkg): (string | undefined)[] => [p.spec.package, p.status?.resolvedPackage];
  const cases: Record<string, { reason: string; event: WatchEvent; want: string[] }> = {
    source: {
      reason: 'a package whose source matches',
      event: event('add', ic(['xpkg.example.org/org/'], rewrite)),
      want: ['a'],
    },
    resolved: {
      reason: 'a package whose resolved reference matches',
      event: event('delete', ic(['mirror.example.org/'], rewrite)),
      want: ['b'],
    },
    nothingToPull: {
      reason: 'an ImageConfig with neither pull secret nor rewrite concerns no pull',
      event: event('add', ic(['xpkg.example.org/'], { verification: { provider: 'Cosign' } })),
      want: [],
    },
    resync: {
      reason: 'a resync changes nothing',
      event: event('resync', ic(['xpkg.example.org/'], rewrite)),
      want: [],
    },
    oldPrefix: {
      reason: 'an update maps through the old object too',
      event: {
        type: 'update',
        object: ic(['nothing.example.org/'], rewrite),
        oldObject: ic(['xpkg.example.org/other/'], rewrite),
      } as unknown as WatchEvent,
      want: ['b'],
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(imageConfigKeys(c.event, packages, images), c.reason).to.deep.equal(c.want);
    });
  }
});
