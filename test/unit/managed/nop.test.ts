import { expect } from 'chai';
import { crdsDir, loadCrds, type CustomResourceDefinition, type OwnerReference } from '../../../src/apis/index.js';
import {
  conditionsAt,
  crossplanePackageOwner,
  EXTERNAL_NAME_ANNOTATION,
  InvalidConditionAfterError,
  nextChangeInMs,
  NOP_FEATURE,
  NOP_TYPE,
  NOP_TYPES,
  nopCrdName,
  NopConnector,
  NopExternalSystem,
  NopInjectedFailure,
  parseConditionAfter,
  PROVIDER_NOP_API_VERSION,
  PROVIDER_NOP_TYPE,
  type ConditionAfter,
  type NopParameters,
  type NopResource,
} from '../../../src/managed/index.js';
import { ManualClock } from '../../../src/base/index.js';

const entries: ConditionAfter[] = [
  { time: '30s', conditionType: 'Ready', conditionStatus: 'True' },
  { time: '60s', conditionType: 'Ready', conditionStatus: 'False', conditionReason: 'Maintenance' },
  { time: '90s', conditionType: 'Ready', conditionStatus: 'True' },
  { time: '90s', conditionType: 'Green', conditionStatus: 'True' },
];

describe('managed/nop conditionAfter', () => {
  const timed = parseConditionAfter(entries);
  const cases: Record<
    string,
    { ageMs: number; want: { type: string; status: string; reason: string }[]; next?: number }
  > = {
    'nothing before the first entry is due': { ageMs: 10_000, want: [], next: 20_000 },
    'the first entry at its time, with Crossplane reason Available': {
      ageMs: 30_000,
      want: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      next: 30_000,
    },
    'a later entry of the same type replaces it, with its own reason': {
      ageMs: 75_000,
      want: [{ type: 'Ready', status: 'False', reason: 'Maintenance' }],
      next: 15_000,
    },
    'after the last entries, one condition per type and nothing more to come': {
      ageMs: 120_000,
      want: [
        { type: 'Ready', status: 'True', reason: 'Available' },
        { type: 'Green', status: 'True', reason: 'ConditionAfter' },
      ],
    },
  };
  for (const [reason, { ageMs, want, next }] of Object.entries(cases)) {
    it(reason, () => {
      expect(conditionsAt(timed, ageMs), reason).to.deep.equal(want);
      expect(nextChangeInMs(timed, ageMs), reason).to.equal(next);
    });
  }

  it('on a tie of times, the first listed entry wins (as provider-nop)', () => {
    const tie = parseConditionAfter([
      { time: '1s', conditionType: 'Ready', conditionStatus: 'True' },
      { time: '1s', conditionType: 'Ready', conditionStatus: 'False' },
    ]);
    expect(conditionsAt(tie, 5_000)).to.deep.equal([{ type: 'Ready', status: 'True', reason: 'Available' }]);
  });

  it('names an entry whose time is not a duration', () => {
    expect(() => parseConditionAfter([{ time: '3 seconds', conditionType: 'Ready', conditionStatus: 'True' }]))
      .to.throw(InvalidConditionAfterError)
      .with.property('message')
      .that.includes('conditionAfter[0].time "3 seconds"');
  });
});

describe('managed/nop connector', () => {
  const created = Date.parse('2026-03-01T10:00:00Z');
  const signal = new AbortController().signal;

  function nop(forProvider: NopParameters): NopResource {
    return {
      apiVersion: 'nop.compositor.crossplane.io/v1alpha1',
      kind: 'NopResource',
      metadata: {
        name: 'example',
        namespace: 'team-a',
        creationTimestamp: new Date(created).toISOString(),
        annotations: { [EXTERNAL_NAME_ANNOTATION]: 'ext-1' },
      },
      spec: { forProvider },
    };
  }

  it('creates, observes up to date with the conditions due, updates on a change and deletes', async () => {
    const clock = new ManualClock(created);
    const system = new NopExternalSystem();
    const client = await new NopConnector({ system, clock }).connect();
    const mr = nop({
      fields: { size: 1 },
      connectionDetails: [{ name: 'user', value: 'admin' }],
      conditionAfter: entries,
    });

    expect(await client.observe(mr, signal)).to.deep.equal({ resourceExists: false, resourceUpToDate: false });
    expect(await client.create(mr, signal)).to.deep.equal({ connectionDetails: { user: 'admin' } });
    expect(system.get('team-a/ext-1')?.fields).to.deep.equal({ size: 1 });

    clock.advance(40_000);
    const observed = await client.observe(mr, signal);
    expect(observed).to.deep.include({
      resourceExists: true,
      resourceUpToDate: true,
      atProvider: { fields: { size: 1 } },
      connectionDetails: { user: 'admin' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      observeAgainInMs: 20_000,
    });

    const changed = nop({ ...mr.spec?.forProvider, fields: { size: 2 } });
    expect((await client.observe(changed, signal)).resourceUpToDate).to.equal(false);
    await client.update(changed, signal);
    expect((await client.observe(changed, signal)).resourceUpToDate).to.equal(true);

    await client.delete(changed, signal);
    expect(system.size).to.equal(0);
  });

  it('fails each call on demand with the message given, and only that call', async () => {
    const system = new NopExternalSystem();
    const client = await new NopConnector({ system }).connect();
    const mr = nop({ failCreate: 'quota exceeded', failObserve: '' });
    expect(await client.observe(mr, signal)).to.include({ resourceExists: false });
    const err = await client.create(mr, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NopInjectedFailure).with.property('message', 'quota exceeded');
    expect(system.size).to.equal(0);
    const failing = nop({ failObserve: 'observe is down' });
    const observeErr = await client.observe(failing, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(observeErr).to.be.instanceOf(NopInjectedFailure);
  });
});

describe('managed/nop connector: cluster-scoped NopResources (nop.crossplane.io)', () => {
  const signal = new AbortController().signal;
  const mr = (namespace?: string): NopResource => ({
    apiVersion: namespace ? 'nop.compositor.crossplane.io/v1alpha1' : PROVIDER_NOP_API_VERSION,
    kind: 'NopResource',
    metadata: { name: 'shared-name', ...(namespace ? { namespace } : {}), creationTimestamp: '2026-03-01T10:00:00Z' },
    spec: { forProvider: { fields: { from: namespace ?? 'cluster' } } },
  });

  it('keys a cluster-scoped one by "/<external name>", apart from a namespaced one of the same name', async () => {
    const system = new NopExternalSystem();
    const client = await new NopConnector({ system }).connect();
    await client.create(mr(), signal);
    await client.create(mr('team-a'), signal);
    expect(system.keys().sort()).to.deep.equal(['/shared-name', 'team-a/shared-name']);
    expect((await client.observe(mr(), signal)).atProvider).to.deep.equal({ fields: { from: 'cluster' } });
    await client.delete(mr(), signal);
    expect(system.keys()).to.deep.equal(['team-a/shared-name']);
  });
});

/** A CRD's spec, read as the plain object it is. */
interface CrdSpec {
  group: string;
  scope: string;
  names: { kind: string; plural: string };
  versions: { name: string; schema: { openAPIV3Schema: Schema } }[];
}
interface Schema {
  properties?: Record<string, Schema>;
  required?: string[];
}

function specOf(crd: CustomResourceDefinition): CrdSpec {
  return crd.spec as unknown as CrdSpec;
}

/** The schema at a path of property names below the version's openAPIV3Schema. */
function schemaAt(crd: CustomResourceDefinition, ...path: string[]): Schema | undefined {
  let schema: Schema | undefined = specOf(crd).versions[0]?.schema.openAPIV3Schema;
  for (const name of path) schema = schema?.properties?.[name];
  return schema;
}

describe('managed/nop APIs and their CRDs', () => {
  let crds: CustomResourceDefinition[];
  const crdOf = (name: string): CustomResourceDefinition => {
    const crd = crds.find((c) => c.metadata.name === name);
    if (!crd) throw new Error(`no CRD ${name} among ${crds.map((c) => c.metadata.name).join(', ')}`);
    return crd;
  };

  before(async () => {
    crds = await loadCrds(crdsDir(), NOP_FEATURE);
  });

  it('ships one CRD per served kind, labelled for the nop feature only, each with the scope NOP_TYPES says', async () => {
    expect(crds.map((crd) => crd.metadata.name).sort()).to.deep.equal(NOP_TYPES.map(nopCrdName).sort());
    for (const type of NOP_TYPES) {
      const spec = specOf(crdOf(nopCrdName(type)));
      expect(`${spec.group}/${spec.versions[0]?.name ?? ''}`).to.equal(type.apiVersion);
      expect(spec.names).to.include({ kind: type.kind, plural: type.plural });
      expect(spec.scope, type.apiVersion).to.equal(type.namespaced ? 'Namespaced' : 'Cluster');
    }
    const always = (await loadCrds()).map((crd) => crd.metadata.name);
    for (const type of NOP_TYPES) expect(always).to.not.include(nopCrdName(type));
  });

  it("serves provider-nop's API as upstream: nop.crossplane.io/v1alpha1 NopResource, cluster-scoped", () => {
    expect(PROVIDER_NOP_TYPE).to.deep.equal({
      apiVersion: 'nop.crossplane.io/v1alpha1',
      kind: 'NopResource',
      plural: 'nopresources',
      namespaced: false,
    });
    expect(nopCrdName(PROVIDER_NOP_TYPE)).to.equal('nopresources.nop.crossplane.io');
  });

  it('has the same forProvider and status schema in both CRDs', () => {
    const ours = crdOf(nopCrdName(NOP_TYPE));
    const upstream = crdOf(nopCrdName(PROVIDER_NOP_TYPE));
    expect(schemaAt(upstream, 'spec', 'forProvider')).to.deep.equal(schemaAt(ours, 'spec', 'forProvider'));
    expect(schemaAt(upstream, 'status')).to.deep.equal(schemaAt(ours, 'status'));
  });

  it("accepts every field of provider-nop v0.3's spec, and needs the Secret's namespace as a cluster-scoped MR", () => {
    const upstream = crdOf(nopCrdName(PROVIDER_NOP_TYPE));
    const spec = Object.keys(schemaAt(upstream, 'spec')?.properties ?? {});
    expect(spec).to.include.members([
      'forProvider',
      'deletionPolicy',
      'managementPolicies',
      'providerConfigRef',
      'providerRef',
      'publishConnectionDetailsTo',
      'writeConnectionSecretToRef',
    ]);
    expect(Object.keys(schemaAt(upstream, 'spec', 'forProvider')?.properties ?? {})).to.include.members([
      'conditionAfter',
      'connectionDetails',
      'fields',
    ]);
    const conditionAfter = schemaAt(upstream, 'spec', 'forProvider', 'conditionAfter') as Schema & {
      items?: Schema;
    };
    expect(conditionAfter.items?.required).to.have.members(['time', 'conditionType', 'conditionStatus']);
    expect(schemaAt(upstream, 'spec', 'writeConnectionSecretToRef')?.required).to.have.members(['name', 'namespace']);
    expect(Object.keys(schemaAt(upstream, 'status')?.properties ?? {})).to.include.members([
      'atProvider',
      'conditions',
    ]);
  });
});

describe('managed/nop crossplanePackageOwner', () => {
  const revision: OwnerReference = {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    name: 'provider-nop-1a2b3c',
    uid: 'u-1',
    controller: true,
  };
  const cases: Record<string, { owners?: OwnerReference[]; want: string | undefined }> = {
    'a CRD compositor or Helm installed has no owner': { want: undefined },
    'an owner of another group is not a package': {
      owners: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'x', uid: 'u-0', controller: true }],
      want: undefined,
    },
    "provider-nop's active revision controls it": { owners: [revision], want: 'provider-nop-1a2b3c' },
    'the controlling revision wins over an inactive one': {
      owners: [{ ...revision, name: 'provider-nop-old', uid: 'u-2', controller: false }, revision],
      want: 'provider-nop-1a2b3c',
    },
    'an inactive revision alone still means a package installed it': {
      owners: [{ ...revision, name: 'provider-nop-old', controller: false }],
      want: 'provider-nop-old',
    },
  };
  for (const [reason, { owners, want }] of Object.entries(cases)) {
    it(reason, () => {
      const crd = { metadata: { name: 'nopresources.nop.crossplane.io', ownerReferences: owners } };
      expect(crossplanePackageOwner(crd)?.name, reason).to.equal(want);
    });
  }
});
