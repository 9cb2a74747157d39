import { expect } from 'chai';
import { resolveManagementPolicies, type ManagementPolicies } from '../../../src/managed/index.js';

const full: ManagementPolicies = {
  paused: false,
  observeOnly: false,
  create: true,
  update: true,
  lateInitialize: true,
  delete: true,
};

describe('managed/resolveManagementPolicies', () => {
  const cases: Record<
    string,
    { managementPolicies?: string[]; deletionPolicy?: 'Delete' | 'Orphan'; want: Partial<ManagementPolicies> }
  > = {
    'absent means ["*"]: every action, delete with the MR': { want: full },
    '["*"] with Orphan keeps the external resource': {
      managementPolicies: ['*'],
      deletionPolicy: 'Orphan',
      want: { ...full, delete: false },
    },
    'every action spelled out is the same as ["*"]': {
      managementPolicies: ['Observe', 'Create', 'Update', 'Delete', 'LateInitialize'],
      want: full,
    },
    'the order of the list does not matter': {
      managementPolicies: ['LateInitialize', 'Delete', 'Update', 'Create', 'Observe'],
      want: full,
    },
    '["Observe"] only observes, never deletes': {
      managementPolicies: ['Observe'],
      want: { paused: false, observeOnly: true, create: false, update: false, lateInitialize: false, delete: false },
    },
    'an empty list pauses': { managementPolicies: [], want: { paused: true } },
    'without Delete the external resource is orphaned even with deletionPolicy Delete': {
      managementPolicies: ['Observe', 'Create', 'Update', 'LateInitialize'],
      deletionPolicy: 'Delete',
      want: { create: true, update: true, lateInitialize: true, delete: false },
    },
    'an explicit Delete wins over deletionPolicy Orphan (non-default policies win)': {
      managementPolicies: ['Observe', 'Create', 'Update', 'Delete'],
      deletionPolicy: 'Orphan',
      want: { delete: true, lateInitialize: false },
    },
    'without LateInitialize no spec writes from late initialization': {
      managementPolicies: ['Observe', 'Create', 'Update', 'Delete'],
      want: { lateInitialize: false, update: true },
    },
    'without Update the external resource is never updated': {
      managementPolicies: ['Observe', 'Create', 'Delete'],
      want: { update: false, create: true, delete: true },
    },
    'Observe and Delete: never created, deleted with the MR': {
      managementPolicies: ['Observe', 'Delete'],
      want: { observeOnly: false, create: false, update: false, delete: true },
    },
  };
  for (const [reason, { managementPolicies, deletionPolicy, want }] of Object.entries(cases)) {
    it(reason, () => {
      const got = resolveManagementPolicies({ managementPolicies, deletionPolicy });
      expect(got.ok, reason).to.equal(true);
      if (got.ok) expect(got.policies, reason).to.include(want);
    });
  }

  const refused: Record<string, string[]> = {
    'Create without Observe': ['Create'],
    '"*" mixed with a named action': ['*', 'Observe'],
    'Update without Create': ['Observe', 'Update'],
  };
  for (const [reason, managementPolicies] of Object.entries(refused)) {
    it(`refuses ${reason}, naming the combination`, () => {
      const got = resolveManagementPolicies({ managementPolicies });
      expect(got.ok).to.equal(false);
      if (!got.ok) expect(got.message).to.include(`[${[...new Set(managementPolicies)].sort().join(', ')}]`);
    });
  }
});
