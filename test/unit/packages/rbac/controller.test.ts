import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import type { ClusterRole, ClusterRoleBinding } from '../../../../src/controller/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import { ProviderRbacController, renderProviderRoles } from '../../../../src/packages/rbac/index.js';
import type { ConfigurationRevision } from '../../../../src/packages/configuration/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';
import { until } from '../../fakes/helpers.js';

// The RBAC controller of ProviderRevisions on the fake API server: roles and binding written once, nothing written
// when they are current (Crossplane's own included), a role another owner controls refused with upstream's event and
// nothing written, the binding following the revision's runtime Deployments.
const RBAC = 'rbac.authorization.k8s.io/v1';
const KINDS = [
  { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision', plural: 'providerrevisions', namespaced: false },
  { apiVersion: RBAC, kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
  { apiVersion: RBAC, kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
];
const NS = 'crossplane-system';
const NAME = 'provider-nop-111111111111';
const SYSTEM = `crossplane:provider:${NAME}:system`;
const NOP_MRD = {
  apiVersion: 'apiextensions.crossplane.io/v1alpha1',
  kind: 'ManagedResourceDefinition',
  name: 'nopresources.nop.crossplane.io',
};

function world(informers = new FakeInformers()): {
  server: FakeApiServer;
  events: RecordingEventSink;
  controller: ProviderRbacController;
} {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const controller = new ProviderRbacController({
    client: server.client,
    discovery: server.discovery,
    informers: informers.registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    namespace: NS,
  });
  return { server, events, controller };
}

function revision(server: FakeApiServer, name = NAME, labels: Record<string, string> = {}): ConfigurationRevision {
  return server.put({
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    metadata: { name, labels },
    spec: { desiredState: 'Active', image: 'xpkg.example.org/crossplane-contrib/provider-nop:v0.5.0', revision: 1 },
    status: { objectRefs: [NOP_MRD] },
  } satisfies ConfigurationRevision & KubeObject);
}

function deployment(server: FakeApiServer, owner: ConfigurationRevision, serviceAccountName: string): void {
  server.put({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: owner.metadata.name,
      namespace: NS,
      ownerReferences: [
        {
          apiVersion: 'pkg.crossplane.io/v1',
          kind: 'ProviderRevision',
          name: owner.metadata.name,
          uid: owner.metadata.uid,
        },
      ],
    },
    spec: { template: { spec: { serviceAccountName } } },
  });
}

const signal = new AbortController().signal;

function messages(events: RecordingEventSink): string[] {
  return events.events.map((e) => `${e.input.type} ${e.input.reason}: ${e.input.message}`);
}

describe('packages/rbac controller', () => {
  it('applies the three roles and the binding of a revision, then writes nothing while they are current', async () => {
    const { server, events, controller } = world();
    const rev = revision(server);
    deployment(server, rev, NAME);
    await controller.reconcile(NAME, signal);
    const roles = server.list<ClusterRole & KubeObject>(RBAC, 'ClusterRole').map((r) => r.metadata.name);
    expect(roles).to.have.members([
      `crossplane:provider:${NAME}:aggregate-to-edit`,
      `crossplane:provider:${NAME}:aggregate-to-view`,
      SYSTEM,
    ]);
    const binding = server.get<ClusterRoleBinding & KubeObject>(RBAC, 'ClusterRoleBinding', SYSTEM);
    expect(binding?.roleRef).to.deep.equal({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: SYSTEM,
    });
    expect(binding?.subjects).to.deep.equal([{ kind: 'ServiceAccount', namespace: NS, name: NAME }]);
    expect(binding?.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'ProviderRevision',
        name: NAME,
        uid: rev.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(messages(events)).to.have.members([
      `Normal ApplyClusterRoles: Applied RBAC ClusterRoles: crossplane:provider:${NAME}:aggregate-to-edit, crossplane:provider:${NAME}:aggregate-to-view, and ${SYSTEM}`,
      `Normal BindClusterRole: Bound system ClusterRole "${SYSTEM}" to provider ServiceAccount(s): ${NS}/${NAME}`,
    ]);
    const writes = server.writes().length;
    await controller.reconcile(NAME, signal);
    expect(server.writes().length).to.equal(writes);
    expect(events.events).to.have.length(2);
  });

  it('adopts roles and a binding Crossplane made for the same revision without writing', async () => {
    const { server, events, controller } = world();
    const rev = revision(server);
    // As Crossplane's RBAC manager stores them: its own field order, server-added fields, no subjects yet.
    for (const role of renderProviderRoles(rev, [{ group: 'nop.crossplane.io', plural: 'nopresources' }])) {
      server.put({
        ...role,
        metadata: { ...role.metadata, annotations: { 'kubectl.kubernetes.io/x': 'y' } },
        rules: role.rules.map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources })),
      });
    }
    server.put({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: {
        name: SYSTEM,
        ownerReferences: renderProviderRoles(rev, [{ group: 'g', plural: 'p' }])[0]?.metadata.ownerReferences,
      },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: SYSTEM },
    });
    await controller.reconcile(NAME, signal);
    expect(server.writes()).to.deep.equal([]);
    expect(events.events).to.deep.equal([]);
  });

  it('refuses a role another object controls: a Warning event, the error thrown, nothing written', async () => {
    const { server, events, controller } = world();
    const rev = revision(server);
    server.put({
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: {
        name: SYSTEM,
        ownerReferences: [
          {
            apiVersion: 'pkg.crossplane.io/v1',
            kind: 'ProviderRevision',
            name: 'other',
            uid: 'other-uid',
            controller: true,
          },
        ],
      },
      rules: [],
    });
    const failure = await controller.reconcile(NAME, signal).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(Error);
    expect(messages(events)).to.include(
      `Warning ApplyClusterRoles: cannot apply ClusterRole: existing object is not controlled by UID "${rev.metadata.uid ?? ''}"`,
    );
    expect(server.get<ClusterRole & KubeObject>(RBAC, 'ClusterRole', SYSTEM)?.rules).to.deep.equal([]);
    // The binding step runs on its own: the binding is applied all the same.
    expect(server.get(RBAC, 'ClusterRoleBinding', SYSTEM)).to.not.equal(undefined);
    expect(server.writes().filter((w) => w.path === `/apis/${RBAC}/clusterroles/${SYSTEM}`)).to.deep.equal([]);
  });

  it('binds only the ServiceAccounts of Deployments the revision owns, and follows a change of them', async () => {
    const { server, controller } = world();
    const rev = revision(server);
    const other = revision(server, 'provider-other-222222222222');
    deployment(server, other, 'provider-other');
    await controller.reconcile(NAME, signal);
    expect(server.get<ClusterRoleBinding & KubeObject>(RBAC, 'ClusterRoleBinding', SYSTEM)?.subjects).to.equal(
      undefined,
    );
    deployment(server, rev, 'nop-runtime');
    await controller.reconcile(NAME, signal);
    expect(server.get<ClusterRoleBinding & KubeObject>(RBAC, 'ClusterRoleBinding', SYSTEM)?.subjects).to.deep.equal([
      { kind: 'ServiceAccount', namespace: NS, name: 'nop-runtime' },
    ]);
  });

  it('grants a family member the kinds of the other members of its organisation', async () => {
    const { server, controller } = world();
    const family = { 'pkg.crossplane.io/provider-family': 'nop' };
    revision(server, NAME, family);
    server.put({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'ProviderRevision',
      metadata: { name: 'family-config-333333333333', labels: family },
      spec: {
        desiredState: 'Active',
        image: 'xpkg.example.org/crossplane-contrib/provider-family-nop:v1',
        revision: 1,
      },
      status: {
        objectRefs: [
          {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            name: 'providerconfigs.nop.crossplane.io',
          },
        ],
      },
    });
    await controller.reconcile(NAME, signal);
    const edit = server.get<ClusterRole & KubeObject>(
      RBAC,
      'ClusterRole',
      `crossplane:provider:${NAME}:aggregate-to-edit`,
    );
    expect(edit?.rules).to.deep.equal([
      {
        apiGroups: ['nop.crossplane.io'],
        resources: ['nopresources', 'nopresources/status', 'providerconfigs', 'providerconfigs/status'],
        verbs: ['*'],
      },
    ]);
  });

  it('looks at every revision of a family again when one of them changes', async () => {
    const informers = new FakeInformers();
    const { server, controller } = world(informers);
    const family = { 'pkg.crossplane.io/provider-family': 'nop' };
    const member = revision(server, NAME, family);
    const config = {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'ProviderRevision',
      metadata: { name: 'family-config-333333333333', labels: family },
      spec: {
        desiredState: 'Active',
        image: 'xpkg.example.org/crossplane-contrib/provider-family-nop:v1',
        revision: 1,
      },
    };
    const stored = server.put(config);
    const revisions = informers.informer('pkg.crossplane.io/v1', 'ProviderRevision');
    revisions.seed(member as ConfigurationRevision & KubeObject);
    revisions.seed(stored);
    await controller.start();
    try {
      const edit = `crossplane:provider:${NAME}:aggregate-to-edit`;
      await until(() => server.get(RBAC, 'ClusterRole', edit) !== undefined, 'the first pass made the roles');
      // The family's config package installs its ProviderConfig CRD: only its own revision changes.
      const objectRefs = [
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'providerconfigs.nop.crossplane.io',
        },
      ];
      revisions.update(server.put({ ...stored, status: { objectRefs } }));
      const granted = (): string[] =>
        server.get<ClusterRole & KubeObject>(RBAC, 'ClusterRole', edit)?.rules[0]?.resources ?? [];
      await until(() => granted().includes('providerconfigs'), `${edit} grants providerconfigs`);
    } finally {
      await controller.stop(AbortSignal.timeout(1_000));
    }
  });

  it('does nothing for a paused or missing revision', async () => {
    const { server, controller } = world();
    server.put({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'ProviderRevision',
      metadata: { name: NAME, annotations: { 'crossplane.io/paused': 'true' } },
      spec: { desiredState: 'Active', image: 'xpkg.example.org/a/b:v1', revision: 1 },
      status: { objectRefs: [NOP_MRD] },
    });
    await controller.reconcile(NAME, signal);
    await controller.reconcile('missing', signal);
    expect(server.writes()).to.deep.equal([]);
  });
});
