import { expect } from 'chai';
import { revisionCurrent, type DesiredRevision } from '../../../../src/packages/configuration/current.js';
import type { ConfigurationRevision } from '../../../../src/packages/configuration/index.js';

const CONTROLLER = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'Configuration',
  name: 'app',
  uid: 'cfg-uid',
  controller: true,
  blockOwnerDeletion: true,
};

const WANT: DesiredRevision = {
  parent: 'app',
  controller: CONTROLLER,
  spec: {
    desiredState: 'Active',
    image: 'registry.example.org/org/app:v1',
    revision: 1,
    packagePullPolicy: 'IfNotPresent',
  },
};

/** A revision as Crossplane's package manager leaves it, with what compositor would apply. */
function stored(change: (r: ConfigurationRevision) => void = () => undefined): ConfigurationRevision {
  const r: ConfigurationRevision = {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ConfigurationRevision',
    metadata: {
      name: 'app-0123456789ab',
      uid: 'rev-uid',
      labels: { 'pkg.crossplane.io/package': 'app', 'meta.label': 'kept' },
      finalizers: ['revision.pkg.crossplane.io'],
      ownerReferences: [{ ...CONTROLLER }],
    },
    spec: {
      desiredState: 'Active',
      image: 'registry.example.org/org/app:v1',
      revision: 1,
      packagePullPolicy: 'IfNotPresent',
    },
    status: { conditions: [] },
  };
  change(r);
  return r;
}

describe('packages/configuration/revisionCurrent', () => {
  const cases: Record<string, { reason: string; revision: ConfigurationRevision | undefined; want: boolean }> = {
    adopted: {
      reason: "Crossplane's revision holds all compositor applies: no write (other labels, finalizers do not count)",
      revision: stored(),
      want: true,
    },
    missing: { reason: 'no revision yet: created', revision: undefined, want: false },
    label: {
      reason: 'no parent label: written',
      revision: stored((r) => {
        r.metadata.labels = {};
      }),
      want: false,
    },
    notController: {
      reason: 'the Configuration an owner but not its controller: written',
      revision: stored((r) => {
        r.metadata.ownerReferences = [{ ...CONTROLLER, controller: false }];
      }),
      want: false,
    },
    inactive: {
      reason: 'another desired state: written',
      revision: stored((r) => {
        r.spec.desiredState = 'Inactive';
      }),
      want: false,
    },
    extra: {
      reason: 'a setting the Configuration no longer has (commonLabels): written, so the apply can drop it',
      revision: stored((r) => {
        r.spec.commonLabels = { team: 'a' };
      }),
      want: false,
    },
  };
  for (const [name, { reason, revision, want }] of Object.entries(cases)) {
    it(name, () => expect(revisionCurrent(revision, WANT), reason).to.equal(want));
  }
});

describe('packages/configuration/revisionCurrent for a kind that copies more (a Provider)', () => {
  const provider: DesiredRevision = {
    ...WANT,
    spec: { ...WANT.spec, runtimeConfigRef: { name: 'debug' } },
    extraFields: ['runtimeConfigRef'],
  };
  const withRuntimeConfig = (name: string | undefined): ConfigurationRevision =>
    stored((r) => {
      if (name !== undefined) Object.assign(r.spec, { runtimeConfigRef: { name } });
    });

  it('holds when the revision has the same runtimeConfigRef', () => {
    expect(revisionCurrent(withRuntimeConfig('debug'), provider)).to.equal(true);
  });
  it('is written when the Provider names another runtimeConfigRef', () => {
    expect(revisionCurrent(withRuntimeConfig('default'), provider)).to.equal(false);
  });
  it('is written when the Provider no longer names one the revision has', () => {
    const none: DesiredRevision = { ...provider, spec: WANT.spec };
    expect(revisionCurrent(withRuntimeConfig('debug'), none)).to.equal(false);
  });
});
