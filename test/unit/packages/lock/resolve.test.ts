import { expect } from 'chai';
import { chooseTag, nextStep, packageNameOf, wantedOf, type LockPackage } from '../../../../src/packages/lock/index.js';

// The resolver's decisions and its version choice, against Crossplane v2.3's resolver and dag.

const pkg = (
  source: string,
  deps: { package: string; type?: 'Function' | 'Provider'; constraints: string }[],
): LockPackage => ({
  name: source.split('/').pop() ?? source,
  type: 'Configuration',
  source,
  version: 'v1.0.0',
  dependencies: deps,
});

describe('lock/resolve: the next dependency to install', () => {
  it('says so when every dependency is provided', () => {
    const lock = [
      pkg('r.example.org/a', [{ package: 'r.example.org/b', constraints: '*' }]),
      pkg('r.example.org/b', []),
    ];
    expect(nextStep(lock, { providers: false })).to.deep.equal({ kind: 'resolved' });
  });

  it('installs the first missing dependency, with the constraints of every package naming it', () => {
    const lock = [
      pkg('r.example.org/a', [{ package: 'r.example.org/fn', type: 'Function', constraints: '>=v0.8.0' }]),
      pkg('r.example.org/b', [{ package: 'r.example.org/fn', type: 'Function', constraints: '<v1.0.0' }]),
    ];
    expect(nextStep(lock, { providers: false })).to.deep.equal({
      kind: 'install',
      dependency: { package: 'r.example.org/fn', type: 'Function', constraints: '>=v0.8.0' },
      constraints: ['>=v0.8.0', '<v1.0.0'],
      skipped: [],
    });
  });

  it('skips Provider dependencies while Providers are disabled, and installs them when enabled', () => {
    const lock = [
      pkg('r.example.org/a', [
        { package: 'r.example.org/helm', type: 'Provider', constraints: 'v0' },
        { package: 'r.example.org/fn', type: 'Function', constraints: '*' },
      ]),
    ];
    const off = nextStep(lock, { providers: false });
    expect(off).to.include({ kind: 'install' });
    expect(off).to.have.deep.property('skipped', ['r.example.org/helm']);
    expect(nextStep([...lock, pkg('r.example.org/fn', [])], { providers: false })).to.deep.equal({
      kind: 'skipped',
      skipped: ['r.example.org/helm'],
    });
    expect(nextStep(lock, { providers: true })).to.have.nested.property('dependency.package', 'r.example.org/helm');
  });

  it('reports a cycle as upstream sorts the graph', () => {
    const lock = [
      pkg('r.example.org/a', [{ package: 'r.example.org/b', constraints: '*' }]),
      pkg('r.example.org/b', [{ package: 'r.example.org/a', constraints: '*' }]),
    ];
    expect(nextStep(lock, { providers: false })).to.deep.equal({
      kind: 'failed',
      message: 'cannot sort DAG: detected cycle on: r.example.org/a',
    });
  });

  it('reports two packages of one source as upstream builds the graph', () => {
    const lock = [pkg('r.example.org/a', []), { ...pkg('r.example.org/a', []), name: 'other' }];
    expect(nextStep(lock, { providers: false })).to.deep.equal({
      kind: 'failed',
      message: 'cannot build DAG: node r.example.org/a already exists',
    });
  });

  it('names a package object after its repository as a DNS label', () => {
    expect(packageNameOf('crossplane-contrib/function-patch-and-transform')).to.equal(
      'crossplane-contrib-function-patch-and-transform',
    );
    expect(packageNameOf('Org/Fn.v2')).to.equal('rg-n-v2');
  });
});

describe('lock/version: the version to install', () => {
  const tags = ['v0.7.0', 'v0.8.2', 'v0.9.0', 'v1.0.0', 'latest', 'v1.1.0-rc.1'];
  const cases: Record<string, { constraints: string[]; want: string | undefined }> = {
    'the highest satisfying tag, as written': { constraints: ['>=v0.8.0'], want: 'v1.0.0' },
    'an exact version': { constraints: ['v0.8.2'], want: 'v0.8.2' },
    'every constraint at once': { constraints: ['>=v0.8.0', '<v1.0.0'], want: 'v0.9.0' },
    'none satisfies': { constraints: ['>=v2.0.0'], want: undefined },
    'constraints that exclude each other': { constraints: ['<v0.8.0', '>=v1.0.0'], want: undefined },
    'a prerelease only when the constraint names one': { constraints: ['>=v1.1.0-0'], want: 'v1.1.0-rc.1' },
  };
  for (const [name, { constraints, want }] of Object.entries(cases)) {
    it(name, () => {
      const wanted = wantedOf(constraints);
      if (!('ranges' in wanted)) throw new Error(`constraints ${constraints.join(', ')} not read as ranges`);
      expect(chooseTag(tags, wanted.ranges)).to.equal(want);
    });
  }

  it('takes a digest constraint as it is, and refuses mixed or differing digests as upstream', () => {
    const a = `sha256:${'a'.repeat(64)}`;
    const b = `sha256:${'b'.repeat(64)}`;
    expect(wantedOf([a, a])).to.deep.equal({ digest: a });
    expect(wantedOf([a, b])).to.deep.equal({
      problem: `a dependency package has different digests in parent constraints ([${a} ${b}])`,
    });
    expect(wantedOf([a, 'v1'])).to.deep.equal({
      problem: `a dependency package has different types of parent constraints ([${a} v1])`,
    });
    expect(wantedOf(['>>1']))
      .to.have.property('problem')
      .that.match(/^version constraint on dependency is invalid/);
  });
});
