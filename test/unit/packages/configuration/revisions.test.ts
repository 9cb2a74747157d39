import { expect } from 'chai';
import {
  configurationHealth,
  planRevisions,
  revisionNameOf,
  type Configuration,
  type ConfigurationRevision,
} from '../../../../src/packages/configuration/index.js';

function rev(name: string, revision: number, desiredState: 'Active' | 'Inactive'): ConfigurationRevision {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ConfigurationRevision',
    metadata: { name },
    spec: { desiredState, image: `registry.example.org/org/${name}`, revision },
  };
}

function cfg(spec: Partial<Configuration['spec']> = {}): Pick<Configuration, 'spec'> {
  return { spec: { package: 'registry.example.org/org/app:v1', ...spec } };
}

describe('packages/configuration/revisionNameOf', () => {
  const cases: Record<string, { reason: string; args: [string, string]; want: string }> = {
    digest: {
      reason: 'the name, a dash and the first 12 hex of the digest (xpkg.FriendlyID)',
      args: ['configuration-app', `sha256:${'0123456789ab'.repeat(5)}abcd`],
      want: 'configuration-app-0123456789ab',
    },
    long: {
      reason: 'a name over 50 characters is cut to 50',
      args: ['a'.repeat(60), `sha256:${'f'.repeat(64)}`],
      want: `${'a'.repeat(50)}-ffffffffffff`,
    },
  };
  for (const [name, { reason, args, want }] of Object.entries(cases)) {
    it(name, () => expect(revisionNameOf(...args), reason).to.equal(want));
  }
});

describe('packages/configuration/planRevisions', () => {
  const cases: Record<
    string,
    {
      reason: string;
      cfg: Pick<Configuration, 'spec'>;
      current: string;
      revisions: ConfigurationRevision[];
      want: { revision: number; desiredState: string; deactivate: string[]; collect?: string };
    }
  > = {
    first: {
      reason: 'the first revision is number 1 and, Automatic by default, Active',
      cfg: cfg(),
      current: 'app-1',
      revisions: [],
      want: { revision: 1, desiredState: 'Active', deactivate: [] },
    },
    upgrade: {
      reason: 'a new digest gets the next number; the active older one is deactivated, not yet collected',
      cfg: cfg(),
      current: 'app-2',
      revisions: [rev('app-1', 1, 'Active')],
      want: { revision: 2, desiredState: 'Active', deactivate: ['app-1'] },
    },
    existing: {
      reason: 'an existing current revision keeps its number',
      cfg: cfg(),
      current: 'app-2',
      revisions: [rev('app-1', 1, 'Inactive'), rev('app-2', 2, 'Active')],
      want: { revision: 2, desiredState: 'Active', deactivate: [] },
    },
    back: {
      reason: 'going back to an older digest renumbers its revision above every other',
      cfg: cfg(),
      current: 'app-1',
      revisions: [rev('app-1', 1, 'Inactive'), rev('app-2', 2, 'Active')],
      want: { revision: 3, desiredState: 'Active', deactivate: ['app-2'] },
    },
    manualNew: {
      reason: 'Manual: a new revision is created Inactive and the active one is still deactivated, as upstream',
      cfg: cfg({ revisionActivationPolicy: 'Manual' }),
      current: 'app-2',
      revisions: [rev('app-1', 1, 'Active')],
      want: { revision: 2, desiredState: 'Inactive', deactivate: ['app-1'] },
    },
    manualActivated: {
      reason: 'Manual: a revision the user activated stays Active',
      cfg: cfg({ revisionActivationPolicy: 'Manual' }),
      current: 'app-2',
      revisions: [rev('app-1', 1, 'Inactive'), rev('app-2', 2, 'Active')],
      want: { revision: 2, desiredState: 'Active', deactivate: [] },
    },
    history: {
      reason: 'past revisionHistoryLimit (default 1) the lowest numbered revision is collected',
      cfg: cfg(),
      current: 'app-3',
      revisions: [rev('app-2', 2, 'Inactive'), rev('app-1', 1, 'Inactive'), rev('app-3', 3, 'Active')],
      want: { revision: 3, desiredState: 'Active', deactivate: [], collect: 'app-1' },
    },
    keepAll: {
      reason: 'a limit of 0 keeps every revision',
      cfg: cfg({ revisionHistoryLimit: 0 }),
      current: 'app-3',
      revisions: [rev('app-1', 1, 'Inactive'), rev('app-2', 2, 'Inactive'), rev('app-3', 3, 'Active')],
      want: { revision: 3, desiredState: 'Active', deactivate: [] },
    },
    neverCurrent: {
      reason: 'the current revision is never collected, even when it has the lowest number before renumbering',
      cfg: cfg(),
      current: 'app-1',
      revisions: [rev('app-1', 1, 'Inactive'), rev('app-2', 2, 'Inactive'), rev('app-3', 3, 'Active')],
      want: { revision: 4, desiredState: 'Active', deactivate: ['app-3'], collect: 'app-2' },
    },
  };
  for (const [name, { reason, cfg: c, current, revisions, want }] of Object.entries(cases)) {
    it(name, () => {
      const plan = planRevisions(c, current, revisions);
      expect(
        {
          revision: plan.revision,
          desiredState: plan.desiredState,
          deactivate: plan.deactivate.map((r) => r.metadata.name),
          ...(plan.collect ? { collect: plan.collect.metadata.name } : {}),
        },
        reason,
      ).to.deep.equal(want);
    });
  }
});

describe('packages/configuration/configurationHealth', () => {
  it('is Healthy when the revision is RevisionHealthy', () => {
    const revision = [{ type: 'RevisionHealthy', status: 'True' as const, reason: 'HealthyPackageRevision' }];
    expect(configurationHealth(revision)).to.deep.equal({
      type: 'Healthy',
      status: 'True',
      reason: 'HealthyPackageRevision',
    });
  });

  it('quotes the revision health and its message otherwise, as upstream words it', () => {
    const revision = [
      {
        type: 'RevisionHealthy',
        status: 'False' as const,
        reason: 'UnhealthyPackageRevision',
        message: 'cannot get package: x',
      },
    ];
    expect(configurationHealth(revision)).to.deep.include({
      status: 'False',
      reason: 'UnhealthyPackageRevision',
      message: 'Package revision health is "False" with message: cannot get package: x',
    });
    expect(configurationHealth(undefined).message).to.equal('Package revision health is "Unknown"');
  });
});
