import { expect } from 'chai';
import {
  chooseUpgrade,
  nextStep,
  pinnedDigest,
  pruneOutdated,
  type LockPackage,
  type UpgradeQuestion,
} from '../../../../src/packages/lock/index.js';

// Dependency version upgrades, against Crossplane v2.3's resolver with EnableAlphaDependencyVersionUpgrades
// (internal/controller/pkg/resolver/reconciler.go: pruneOutdatedDependencies, findDigestToUpdate,
// findDependencyVersionToUpdate) and its upgrading graph (internal/dag/upgrading_dag.go).

const FN = 'r.example.org/fn';
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const NO_VALID = `dependency (${FN}) does not have a valid version to upgrade that satisfies all constraints. If there is a valid version that requires downgrade, manual intervention is required. Constraints:`;

const parent = (source: string, constraints: string): LockPackage => ({
  name: source.split('/').pop() ?? source,
  type: 'Configuration',
  source,
  version: 'v1.0.0',
  dependencies: [{ package: FN, type: 'Function', constraints }],
});
const fn = (version: string): LockPackage => ({ name: 'fn', type: 'Function', source: FN, version, dependencies: [] });

describe('lock/upgrade: the next step with upgrades', () => {
  const cases: Record<string, { reason: string; lock: LockPackage[]; upgrades: boolean; want: unknown }> = {
    'outdated and upgrades off': {
      reason: 'without upgrades an installed dependency is never implied, whatever its version',
      lock: [parent('r.example.org/a', '>=v0.8.0'), parent('r.example.org/b', '>=v0.9.0'), fn('v0.8.2')],
      upgrades: false,
      want: { kind: 'resolved' },
    },
    'outdated for one parent': {
      reason: 'an installed version breaking one constraint is implied, with every constraint on it',
      lock: [parent('r.example.org/a', '>=v0.8.0'), parent('r.example.org/b', '>=v0.9.0'), fn('v0.8.2')],
      upgrades: true,
      want: {
        kind: 'install',
        dependency: { package: FN, type: 'Function', constraints: '>=v0.9.0' },
        constraints: ['>=v0.8.0', '>=v0.9.0'],
        skipped: [],
      },
    },
    'outdated for every parent': {
      reason: 'a version no constraint accepts is pruned from the graph, so the dependency is missing',
      lock: [parent('r.example.org/b', '>=v0.9.0'), fn('v0.8.2')],
      upgrades: true,
      want: {
        kind: 'install',
        dependency: { package: FN, type: 'Function', constraints: '>=v0.9.0' },
        constraints: ['>=v0.9.0'],
        skipped: [],
      },
    },
    'digest kept': {
      reason: 'an installed digest equal to the pinned one keeps the constraint',
      lock: [parent('r.example.org/a', D1), fn(D1)],
      upgrades: true,
      want: { kind: 'resolved' },
    },
    satisfied: {
      reason: 'a version every constraint accepts is left alone',
      lock: [parent('r.example.org/a', '>=v0.8.0'), parent('r.example.org/b', '<v1.0.0'), fn('v0.8.2')],
      upgrades: true,
      want: { kind: 'resolved' },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(nextStep(c.lock, { providers: false, upgrades: c.upgrades }), c.reason).to.deep.equal(c.want);
    });
  }

  it('keeps roots and dependencies matching at least one constraint when pruning', () => {
    const lock = [parent('r.example.org/a', '>=v0.8.0'), parent('r.example.org/b', '>=v0.9.0'), fn('v0.8.2')];
    expect(pruneOutdated(lock).map((p) => p.source)).to.deep.equal(['r.example.org/a', 'r.example.org/b', FN]);
    expect(pruneOutdated([parent('r.example.org/b', '>=v0.9.0'), fn('v0.8.2')]).map((p) => p.source)).to.deep.equal([
      'r.example.org/b',
    ]);
    expect(pruneOutdated([parent('r.example.org/a', D1), fn(D2)]).map((p) => p.source)).to.deep.equal([
      'r.example.org/a',
    ]);
  });
});

describe('lock/upgrade: the digest the constraints pin', () => {
  const cases: Record<string, { reason: string; constraints: string[]; want: unknown }> = {
    ranges: { reason: 'ranges pin nothing', constraints: ['>=v1', '<v2'], want: {} },
    'one digest': { reason: 'every parent pins the same digest', constraints: [D1, D1], want: { digest: D1 } },
    'two digests': {
      reason: 'parents pinning different digests cannot both be met',
      constraints: [D1, D2],
      want: { problem: `a dependency package has different digests in parent constraints ([${D1} ${D2}])` },
    },
    'digest and range': {
      reason: 'a digest beside a range is refused, in either order',
      constraints: ['>=v1', D1],
      want: { problem: `a dependency package has different types of parent constraints ([>=v1 ${D1}])` },
    },
    'digest, range, other digest': {
      reason: 'upstream stops at the mix before it sees the second digest',
      constraints: [D1, '>=v1', D2],
      want: { problem: `a dependency package has different types of parent constraints ([${D1} >=v1 ${D2}])` },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(pinnedDigest(c.constraints), c.reason).to.deep.equal(c.want));
  }
});

describe('lock/upgrade: the tag an installed dependency moves to', () => {
  const tags = ['latest', 'v0.7.0', 'v0.8.2', 'v0.9.1', 'v0.9.0', 'v1.0.0'];
  const ask = (installed: string, constraints: string[], downgrades = false): UpgradeQuestion => ({
    source: FN,
    installed,
    constraints,
    downgrades,
  });
  const cases: Record<string, { reason: string; question: UpgradeQuestion; want: unknown }> = {
    upgrade: {
      reason: 'the lowest tag at or above the installed one satisfying every constraint, as upstream',
      question: ask('v0.8.2', ['>=v0.8.0', '>=v0.9.0']),
      want: { version: 'v0.9.0' },
    },
    'upgrade within a range': {
      reason: 'every constraint counts, not only the one that broke',
      question: ask('v0.8.2', ['>=v0.9.1', '<v1.0.0']),
      want: { version: 'v0.9.1' },
    },
    'downgrade refused': {
      reason: 'no tag at or above the installed one fits and downgrades are off: upstream error, with the list',
      question: ask('v1.0.0', ['<v0.9.0']),
      want: { problem: `${NO_VALID} [<v0.9.0]` },
    },
    'downgrade allowed': {
      reason: 'with downgrades, the highest satisfying tag below the installed one',
      question: ask('v1.0.0', ['<v0.9.0'], true),
      want: { version: 'v0.8.2' },
    },
    'downgrades prefer an upgrade': {
      reason: 'a satisfying tag at or above the installed one still wins with downgrades on',
      question: ask('v0.8.2', ['>=v0.7.0', '!=v0.8.2'], true),
      want: { version: 'v0.9.0' },
    },
    'nothing satisfies': {
      reason: 'constraints no tag meets together',
      question: ask('v0.8.2', ['>=v0.9.0', '<v0.9.0'], true),
      want: { problem: `${NO_VALID} [>=v0.9.0 <v0.9.0]` },
    },
    'bad constraint': {
      reason: "an unreadable constraint is upstream's errInvalidConstraint",
      question: ask('v0.8.2', ['>=v0.9.0', 'not a range']),
      want: { problem: 'version constraint on dependency is invalid: improper constraint: not a range' },
    },
    'installed digest': {
      reason: 'an installed digest cannot be compared with tags',
      question: ask(D1, ['>=v0.9.0']),
      want: { problem: `installed version ${D1} is not a semantic version` },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(chooseUpgrade(tags, c.question), c.reason).to.deep.equal(c.want));
  }
});
