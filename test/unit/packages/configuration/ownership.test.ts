import { expect } from 'chai';
import { decideOwnership, released, type OwnerReference } from '../../../../src/packages/configuration/index.js';

const REV = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ConfigurationRevision' };
const rev1: OwnerReference = { ...REV, name: 'app-1', uid: 'uid-1' };
const rev2: OwnerReference = { ...REV, name: 'app-2', uid: 'uid-2' };
const pkg: OwnerReference = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Configuration', name: 'app', uid: 'uid-app' };
const pkgOwner = { ...pkg, controller: false };
const ctl = (r: OwnerReference): OwnerReference => ({ ...r, controller: true, blockOwnerDeletion: true });
const owner = (r: OwnerReference): OwnerReference => ({
  apiVersion: r.apiVersion,
  kind: r.kind,
  name: r.name,
  uid: r.uid,
});
const other: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'mine', uid: 'uid-mine', controller: true };

describe('packages/configuration/decideOwnership', () => {
  const cases: Record<
    string,
    { reason: string; current: OwnerReference[] | undefined; revision: OwnerReference; control: boolean; want: unknown }
  > = {
    create: {
      reason: 'the active revision creates a missing object, controlled by it and owned by the package',
      current: undefined,
      revision: rev1,
      control: true,
      want: { action: 'write', ownerReferences: [ctl(rev1), pkgOwner] },
    },
    inactiveCreates: {
      reason: 'an inactive revision creates nothing',
      current: undefined,
      revision: rev1,
      control: false,
      want: { action: 'skip' },
    },
    takeOverUncontrolled: {
      reason: "a user's object nobody controls is taken over, its owners kept",
      current: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'note', uid: 'uid-note' }],
      revision: rev1,
      control: true,
      want: {
        action: 'write',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'note', uid: 'uid-note' }, pkgOwner, ctl(rev1)],
      },
    },
    refuseOther: {
      reason: "an object another controller controls is refused with crossplane-runtime's message",
      current: [other],
      revision: rev1,
      control: true,
      want: { action: 'refuse', message: 'xapps.example.org is already controlled by ConfigMap mine (UID uid-mine)' },
    },
    refuseSibling: {
      reason: 'an older revision that has not released control yet is refused too, until it does (upstream)',
      current: [ctl(rev1), pkgOwner],
      revision: rev2,
      control: true,
      want: {
        action: 'refuse',
        message: 'xapps.example.org is already controlled by ConfigurationRevision app-1 (UID uid-1)',
      },
    },
    takeOverReleased: {
      reason: 'once released, the new revision controls it and the old stays an owner',
      current: [owner(rev1), pkgOwner],
      revision: rev2,
      control: true,
      want: { action: 'write', ownerReferences: [owner(rev1), pkgOwner, ctl(rev2)] },
    },
    inactiveOwns: {
      reason: 'an inactive revision only adds itself as owner, leaving the controller alone',
      current: [ctl(rev2), pkgOwner],
      revision: rev1,
      control: false,
      want: { action: 'write', ownerReferences: [ctl(rev2), pkgOwner, owner(rev1)] },
    },
    inactiveOfOther: {
      reason: 'an inactive revision never refuses: it takes no control',
      current: [other],
      revision: rev1,
      control: false,
      want: { action: 'write', ownerReferences: [other, pkgOwner, owner(rev1)] },
    },
  };
  for (const [name, { reason, current, revision, control, want }] of Object.entries(cases)) {
    it(name, () => {
      const got = decideOwnership({ name: 'xapps.example.org', current, revision, owningPackage: pkg, control });
      expect(got, reason).to.deep.equal(want);
    });
  }
});

describe('packages/configuration/released', () => {
  it('drops the controller flag of the revision, keeping it an owner', () => {
    expect(released([ctl(rev1), pkgOwner], rev1)).to.deep.equal([owner(rev1), pkgOwner]);
  });
  it('adds the revision as owner when it was missing', () => {
    expect(released([pkgOwner], rev1)).to.deep.equal([pkgOwner, owner(rev1)]);
  });
  it('changes nothing when the revision is an owner already', () => {
    expect(released([owner(rev1), pkgOwner], rev1)).to.equal(undefined);
  });
});
