import { expect } from 'chai';
import { checkLock, dependenciesOf, satisfies, type LockPackage } from '../../../../src/packages/lock/index.js';
import type { PackageMeta } from '../../../../src/packages/xpkg/index.js';

// The revision side's bookkeeping against Crossplane v2.3's PackageDependencyManager.Resolve: who is added, what is
// counted, and its messages.

const FN = 'xpkg.example.org/org/function-pat';
const HELM = 'xpkg.example.org/org/provider-helm';

const app: LockPackage = {
  name: 'app-111111111111',
  type: 'Configuration',
  source: 'xpkg.example.org/org/app',
  version: 'v1.0.0',
  dependencies: [
    { package: HELM, type: 'Provider', constraints: 'v0' },
    { package: FN, type: 'Function', constraints: '>=v0.8.0' },
  ],
};
const fn = (version: string): LockPackage => ({
  name: 'function-pat-222222222222',
  type: 'Function',
  source: FN,
  version,
  dependencies: [],
});
const helm: LockPackage = { name: 'helm-333', type: 'Provider', source: HELM, version: 'v0.20.0', dependencies: [] };

describe('lock/check: a revision in the Lock', () => {
  const cases: Record<
    string,
    { reason: string; lock: LockPackage[]; self?: LockPackage; want: ReturnType<typeof checkLock> }
  > = {
    'first pass, nothing installed': {
      reason: 'a revision not in the Lock adds itself and counts its direct dependencies found in the graph',
      lock: [],
      want: {
        found: 2,
        installed: 0,
        invalid: 0,
        problem: `missing dependencies: [${HELM} ${FN}]`,
        packages: [app],
      },
    },
    'first pass, one installed': {
      reason: 'an installed dependency counts; the missing one is named',
      lock: [fn('v0.8.2')],
      want: {
        found: 2,
        installed: 1,
        invalid: 0,
        problem: `missing dependencies: [${HELM}]`,
        packages: [fn('v0.8.2'), app],
      },
    },
    'already in the Lock, one missing': {
      reason: 'the traced tree names what no package in the Lock provides',
      lock: [app, fn('v0.8.2')],
      want: { found: 2, installed: 1, invalid: 0, problem: `missing dependencies: [${HELM}]` },
    },
    'all installed at valid versions': {
      reason: 'nothing missing, every constraint satisfied: healthy, and the Lock is not written',
      lock: [app, fn('v0.8.2'), helm],
      want: { found: 2, installed: 2, invalid: 0 },
    },
    'installed at a version outside the constraint': {
      reason: 'a dependency whose version does not satisfy the constraint is invalid, by source',
      lock: [app, fn('v0.7.0'), helm],
      want: {
        found: 2,
        installed: 2,
        invalid: 1,
        problem: `incompatible dependencies: existing package ${FN}@v0.7.0 is incompatible with constraint >=v0.8.0`,
      },
    },
    'revision at another version': {
      reason: "a revision whose package moved to a tag of the same image has its version updated, as upstream's",
      lock: [app, fn('v0.8.2'), helm],
      self: fn('v0.9.0'),
      want: { found: 0, installed: 0, invalid: 0, packages: [app, fn('v0.9.0'), helm] },
    },
    'transitive dependency missing': {
      reason: 'a dependency of a dependency counts in found, and missing when no package provides it',
      lock: [
        app,
        { ...fn('v0.8.2'), dependencies: [{ package: 'xpkg.example.org/org/deep', constraints: '*' }] },
        helm,
      ],
      want: { found: 3, installed: 2, invalid: 0, problem: 'missing dependencies: [xpkg.example.org/org/deep]' },
    },
  };
  for (const [name, { reason, lock, self, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(checkLock(lock, self ?? app), reason).to.deep.equal(want);
    });
  }

  it('checks a digest constraint by equality', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(satisfies(digest, digest)).to.equal(true);
    expect(satisfies(digest, 'v1.0.0')).to.equal(false);
    expect(satisfies('>=v1.0.0', digest)).to.equal(false);
    expect(satisfies('v0', 'v0.20.0')).to.equal(true);
  });
});

describe('lock/dependencies: dependsOn as Lock dependencies', () => {
  it('reads provider, configuration, function and package entries, the version as the constraint', () => {
    const meta: PackageMeta = {
      apiVersion: 'meta.pkg.crossplane.io/v1',
      kind: 'Configuration',
      spec: {
        dependsOn: [
          { provider: HELM, version: 'v0' },
          { configuration: 'xpkg.example.org/org/base', version: '>=v1' },
          { function: FN, version: 'v0.8.2' },
          { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', package: 'xpkg.example.org/org/fn', version: '*' },
        ],
      },
    };
    expect(dependenciesOf(meta)).to.deep.equal([
      { package: HELM, type: 'Provider', constraints: 'v0' },
      { package: 'xpkg.example.org/org/base', type: 'Configuration', constraints: '>=v1' },
      { package: FN, type: 'Function', constraints: 'v0.8.2' },
      { package: 'xpkg.example.org/org/fn', apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', constraints: '*' },
    ]);
  });

  it('refuses an entry that names no package', () => {
    const meta: PackageMeta = {
      apiVersion: 'meta.pkg.crossplane.io/v1',
      kind: 'Configuration',
      spec: { dependsOn: [{ version: 'v1' }] },
    };
    expect(() => dependenciesOf(meta)).to.throw(/^cannot read dependency 0 of the package metadata/);
  });
});
