import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import {
  ConfigurationController,
  ConfigurationRevisionController,
} from '../../../../src/packages/configuration/index.js';
import { RegistryUnreachableError } from '../../../../src/packages/oci/index.js';
import type { FetchedPackage } from '../../../../src/packages/xpkg/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

const PKG = 'pkg.crossplane.io/v1';
const KINDS = [
  { apiVersion: PKG, kind: 'Configuration', plural: 'configurations', namespaced: false },
  { apiVersion: PKG, kind: 'ConfigurationRevision', plural: 'configurationrevisions', namespaced: false },
  {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    plural: 'compositeresourcedefinitions',
    namespaced: false,
  },
  { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'Composition', plural: 'compositions', namespaced: false },
];
const DIGEST_V1 = `sha256:${'1'.repeat(64)}`;
const DIGEST_V2 = `sha256:${'2'.repeat(64)}`;

type Stored = KubeObject & {
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] } & Record<
    string,
    unknown
  >;
};

/** A package client answering from a table of references; anything else is an unreachable registry. */
function packages(table: Record<string, Partial<FetchedPackage>>): { get: (ref: string) => Promise<FetchedPackage> } {
  return {
    get: (ref) => {
      const pkg = table[ref];
      if (pkg === undefined) return Promise.reject(new RegistryUnreachableError(`cannot reach ${ref}`));
      return Promise.resolve({ meta: [], objects: [], source: '', version: '', digest: '', resolvedRef: '', ...pkg });
    },
  };
}

const meta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Configuration' as const, metadata: { name: 'app' } };
const xrd = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'CompositeResourceDefinition',
  metadata: { name: 'xapps.example.org' },
};
const TABLE: Record<string, Partial<FetchedPackage>> = {
  'registry.example.org/org/app:v1': { digest: DIGEST_V1, meta: [meta], objects: [xrd] },
  'registry.example.org/org/app:v2': { digest: DIGEST_V2, meta: [meta], objects: [xrd] },
  'registry.example.org/org/app:wrong-kind': {
    digest: DIGEST_V2,
    meta: [{ ...meta, kind: 'Provider' as const }],
    objects: [],
  },
};

function world(): {
  server: FakeApiServer;
  events: RecordingEventSink;
  configurations: ConfigurationController;
  revisions: ConfigurationRevisionController;
} {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const common = {
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    namespace: 'crossplane-system',
    packages: packages(TABLE),
  };
  return {
    server,
    events,
    configurations: new ConfigurationController(common),
    revisions: new ConfigurationRevisionController(common),
  };
}

const signal = new AbortController().signal;

function configuration(server: FakeApiServer, pkg: string): void {
  server.put({ apiVersion: PKG, kind: 'Configuration', metadata: { name: 'app' }, spec: { package: pkg } });
}

function conditions(object: Stored | undefined): Record<string, string> {
  return Object.fromEntries((object?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));
}

describe('packages/configuration controllers', () => {
  it('creates the revision of the digest, Active and controlled by the Configuration; it installs and reports health', async () => {
    const { server, configurations, revisions } = world();
    configuration(server, 'registry.example.org/org/app:v1');
    await configurations.reconcile('app', signal);
    const rev = server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111');
    expect(rev?.spec).to.include({ desiredState: 'Active', image: 'registry.example.org/org/app:v1', revision: 1 });
    expect(rev?.metadata.ownerReferences).to.deep.include({
      apiVersion: PKG,
      kind: 'Configuration',
      name: 'app',
      uid: server.get(PKG, 'Configuration', 'app')?.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    await revisions.reconcile('app-111111111111', signal);
    expect(conditions(server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111'))).to.deep.equal({
      RevisionHealthy: 'True/HealthyPackageRevision',
    });
    await configurations.reconcile('app', signal);
    const cfg = server.get<Stored>(PKG, 'Configuration', 'app');
    expect(conditions(cfg)).to.deep.equal({
      Healthy: 'True/HealthyPackageRevision',
      Installed: 'True/ActivePackageRevision',
    });
    expect(cfg?.status).to.include({
      currentRevision: 'app-111111111111',
      currentIdentifier: 'registry.example.org/org/app:v1',
      resolvedPackage: 'registry.example.org/org/app:v1',
    });
  });

  it('reports an unreachable registry as UnpackingPackage and changes no revision', async () => {
    const { server, events, configurations } = world();
    configuration(server, 'registry.example.org/org/app:v1');
    await configurations.reconcile('app', signal);
    const before = server.writes().length;
    server.put({
      ...server.get<Stored>(PKG, 'Configuration', 'app'),
      spec: { package: 'unreachable.example.org/org/app:v1' },
    } as Stored);
    const err = await configurations.reconcile('app', signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    const cfg = server.get<Stored>(PKG, 'Configuration', 'app');
    expect(conditions(cfg)).to.include({
      Installed: 'False/UnpackingPackage',
      Healthy: 'False/UnhealthyPackageRevision',
    });
    expect(cfg?.status?.conditions?.[0]?.message).to.match(/^cannot unpack package: /);
    const writes = server.writes().slice(before);
    expect(writes.map((w) => w.path)).to.deep.equal(['/apis/pkg.crossplane.io/v1/configurations/app/status']);
    expect(events.events.map((e) => e.input.reason)).to.include('UnpackPackage');
  });

  it('upgrades: the new digest gets revision 2, the old one is made Inactive', async () => {
    const { server, configurations } = world();
    configuration(server, 'registry.example.org/org/app:v1');
    await configurations.reconcile('app', signal);
    server.put({
      ...server.get<Stored>(PKG, 'Configuration', 'app'),
      spec: { package: 'registry.example.org/org/app:v2' },
    } as Stored);
    await configurations.reconcile('app', signal);
    expect(server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111')?.spec.desiredState).to.equal(
      'Inactive',
    );
    expect(server.get<Stored>(PKG, 'ConfigurationRevision', 'app-222222222222')?.spec).to.include({
      desiredState: 'Active',
      revision: 2,
    });
  });

  it('refuses a package whose metadata is not a Configuration, installing nothing', async () => {
    const { server, events, revisions } = world();
    server.put({
      apiVersion: PKG,
      kind: 'ConfigurationRevision',
      metadata: { name: 'app-222222222222', labels: { 'pkg.crossplane.io/package': 'app' } },
      spec: { desiredState: 'Active', image: 'registry.example.org/org/app:wrong-kind', revision: 1 },
    });
    await revisions.reconcile('app-222222222222', signal);
    const rev = server.get<Stored>(PKG, 'ConfigurationRevision', 'app-222222222222');
    expect(rev?.status?.conditions?.[0]).to.include({
      type: 'RevisionHealthy',
      status: 'False',
      reason: 'UnhealthyPackageRevision',
      message: 'validating package contents failed: package meta type is not Configuration',
    });
    expect(server.list('apiextensions.crossplane.io/v1', 'CompositeResourceDefinition')).to.deep.equal([]);
    expect(events.events.map((e) => `${e.input.type}/${e.input.reason}`)).to.deep.equal(['Warning/ValidatePackage']);
  });
});
