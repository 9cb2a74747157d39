import type { KubeClient } from '../../src/kube/index.js';
import { generateCa, issueLeaf, type KeyPair } from '../../src/packages/certificates.js';
import {
  buildDeployment,
  buildService,
  buildServiceAccount,
  revisionOwner,
  type RuntimeInput,
} from '../../src/packages/manifests.js';
import {
  CLIENT_SECRET,
  clientDnsNames,
  clientSecretName,
  dnsNamesForService,
  ROOT_CA_SECRET,
  serverSecretName,
} from '../../src/packages/names.js';
import { crdOf, PROVIDER_RUNTIME, toManagedResourceDefinitions } from '../../src/packages/provider/index.js';
import {
  definedResources,
  renderProviderBinding,
  renderProviderRoles,
  runtimeSubjects,
} from '../../src/packages/rbac/index.js';
import type { PackageObject } from '../../src/packages/xpkg/index.js';
import {
  friendlyId,
  healthy,
  LABEL_PACKAGE,
  now,
  refTo,
  REVISION_FINALIZER,
  sortedRefs,
  type Owned,
} from './crossplanePackageReplay.js';
import { create, CROSSPLANE, must, put, type Stored } from './crossplaneReplay.js';

// Crossplane v2.3 installing a Provider, as its controllers' writes leave it, for the migration tests (no Crossplane
// binary runs). Each object is created by a plain request under Crossplane's manager `crossplane`, but for the CRDs
// its MRD controller server-side applies as `crossplane-mrd-controller`. The shapes of the runtime objects, MRDs,
// CRDs and roles are compositor's renderings of upstream's (the unit and integration tests of each hold them to
// upstream's); here they are written as Crossplane writes them, so the takeover test sees what compositor writes over
// Crossplane's objects.
// - core init (internal/initializer): the root CA Secret `crossplane-root-ca`, core's client certificate
//   `crossplane-tls-client`, the `default` DeploymentRuntimeConfig;
// - the Provider's reconciler (internal/controller/pkg/manager/reconciler.go): the revision named FriendlyID, labelled
//   with its package, controlled by the Provider, with the Provider's spec copied (pull settings, runtimeConfigRef,
//   and the TLS Secret names `<provider>-tls-server` and `<provider>-tls-client`); the Provider's status;
// - the runtime (internal/controller/pkg/runtime/runtime_provider.go): the Service and the two TLS Secrets, signed by
//   the root CA and controlled by the revision, then the ServiceAccount and the Deployment; RuntimeHealthy;
// - the revision's reconciler (revision/reconciler.go, establisher.go): its finalizer, each managed resource CRD as a
//   ManagedResourceDefinition controlled by the revision, the Provider a plain owner; its status (RevisionHealthy,
//   objectRefs sorted descending, resolvedImage, capabilities);
// - the MRD controller (internal/controller/apiextensions/managed): each MRD's CRD, Established True;
// - the RBAC manager (internal/controller/rbac/provider/roles, binding): the revision's three ClusterRoles and the
//   binding of its system role to the runtime's ServiceAccount.

const MRD_FIELD_OWNER = 'crossplane-mrd-controller';

export interface ProviderInstall {
  /** The Provider as stored (a user made it). */
  provider: Stored;
  /** The digest its spec.package resolved to. */
  digest: string;
  /** The package's objects as parsed (its CRDs). */
  objects: readonly PackageObject[];
  /** Crossplane's namespace, which compositor's is. */
  namespace: string;
}

export interface ProviderInstalled {
  revision: Owned;
  mrds: Owned[];
  crds: Owned[];
  /** The ServiceAccount, Service, Deployment and the provider's two TLS Secrets. */
  runtime: Owned[];
  /** The root CA and core's client certificate Secrets. */
  core: Owned[];
  /** The three ClusterRoles and the binding. */
  rbac: Owned[];
}

/** What core init leaves in its namespace: the root CA, its own client certificate, the `default` runtime config. */
async function crossplaneCore(client: KubeClient, namespace: string): Promise<{ ca: KeyPair; core: Owned[] }> {
  const ca = await generateCa(new Date());
  const caSecret = secret(ROOT_CA_SECRET, namespace, { 'tls.crt': ca.cert, 'tls.key': ca.key });
  const leaf = await issueLeaf(ca, clientDnsNames(namespace), 'client', new Date());
  const clientSecret = secret(CLIENT_SECRET, namespace, {
    'tls.crt': leaf.cert,
    'tls.key': leaf.key,
    'ca.crt': ca.cert,
  });
  const core = [
    await create<Owned>(client, caSecret, CROSSPLANE),
    await create<Owned>(client, clientSecret, CROSSPLANE),
  ];
  const runtimeConfig = {
    apiVersion: 'pkg.crossplane.io/v1beta1',
    kind: 'DeploymentRuntimeConfig',
    metadata: { name: 'default' },
    spec: {},
  };
  await create(client, runtimeConfig, CROSSPLANE).catch(async (err: unknown) => {
    // Another test file's compositor may have made it: it is the same empty config.
    if ((await must(client, runtimeConfig).catch(() => undefined)) === undefined) throw err;
  });
  return { ca, core };
}

function secret(name: string, namespace: string, data: Record<string, string>, owner?: unknown): Owned {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...(owner === undefined ? {} : { ownerReferences: [owner as never] }) },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/** The revision the Provider's reconciler writes, with the Provider's (defaulted) spec copied. */
function desiredRevision(provider: Stored, digest: string): Owned {
  const spec = provider.spec ?? {};
  const copied = Object.fromEntries(
    [
      'packagePullPolicy',
      'packagePullSecrets',
      'ignoreCrossplaneConstraints',
      'skipDependencyResolution',
      'runtimeConfigRef',
    ].flatMap((key) => (spec[key] === undefined ? [] : [[key, spec[key]]])),
  );
  const name = provider.metadata.name;
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    metadata: {
      name: friendlyId(name, digest),
      labels: { [LABEL_PACKAGE]: name },
      ownerReferences: [refTo(provider, true)],
    },
    spec: {
      desiredState: 'Active',
      image: String(spec.package),
      revision: 1,
      ...copied,
      tlsServerSecretName: serverSecretName(name),
      tlsClientSecretName: clientSecretName(name),
    },
  };
}

/** The runtime hooks' objects: pre (Service, TLS Secrets), post (ServiceAccount, Deployment). */
async function crossplaneRuntime(client: KubeClient, input: RuntimeInput, ca: KeyPair): Promise<Owned[]> {
  const { revision } = input;
  const owner = revisionOwner(revision, PROVIDER_RUNTIME);
  const service = await create<Owned>(client, buildService(input), CROSSPLANE);
  const provider = service.metadata.name;
  const server = await issueLeaf(ca, dnsNamesForService(provider, input.namespace), 'server', new Date());
  const clientLeaf = await issueLeaf(ca, [revision.metadata.name], 'client', new Date());
  const secrets = [
    [revision.spec.tlsServerSecretName, server],
    [revision.spec.tlsClientSecretName, clientLeaf],
  ] as const;
  const made: Owned[] = [service];
  for (const [name, leaf] of secrets) {
    const data = { 'tls.crt': leaf.cert, 'tls.key': leaf.key, 'ca.crt': ca.cert };
    made.push(await create<Owned>(client, secret(String(name), input.namespace, data, owner), CROSSPLANE));
  }
  const account = buildServiceAccount(input);
  made.push(await create<Owned>(client, account, CROSSPLANE));
  made.push(await create<Owned>(client, buildDeployment(input, account.metadata.name), CROSSPLANE));
  return made;
}

/**
 * Each MRD the revision establishes (Active: the package has no safe-start capability), and its CRD as the MRD
 * controller applies it; the MRD Established.
 */
async function crossplaneMrds(
  client: KubeClient,
  revision: Owned,
  input: ProviderInstall,
): Promise<{ mrds: Owned[]; crds: Owned[] }> {
  const owners = [refTo(revision, true), { ...refTo(input.provider, true), controller: false }];
  const mrds: Owned[] = [];
  const crds: Owned[] = [];
  for (const object of toManagedResourceDefinitions(input.objects, undefined)) {
    const mrd = await create<Owned>(
      client,
      { ...object, metadata: { ...object.metadata, ownerReferences: owners } } as Owned,
      CROSSPLANE,
    );
    const crd = crdOf(mrd as never);
    crds.push(
      await client.request<Owned>(
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
        {
          body: crd,
          contentType: 'application/apply-patch+yaml',
          query: { fieldManager: MRD_FIELD_OWNER, force: 'true' },
        },
      ),
    );
    const established = { type: 'Established', status: 'True', reason: 'EstablishedManagedResource' };
    mrds.push(
      await put<Owned>(
        client,
        { ...mrd, status: { conditions: [{ ...established, lastTransitionTime: now() }] } },
        '/status',
      ),
    );
  }
  return { mrds, crds };
}

/** The RBAC manager's roles and binding of the revision. */
async function crossplaneRbac(client: KubeClient, revision: Owned, deployment: Owned): Promise<Owned[]> {
  const rev = revision as never;
  const refs = (revision.status as { objectRefs?: never[] } | undefined)?.objectRefs;
  const roles = renderProviderRoles(rev, definedResources(refs));
  const binding = renderProviderBinding(rev, runtimeSubjects(rev, [deployment as never]));
  const made: Owned[] = [];
  for (const object of [...roles, binding]) made.push(await create<Owned>(client, object as never, CROSSPLANE));
  return made;
}

/** The Secret names the runtime observed (runtime_provider.go: SetObservedTLSServerSecretName, ...ClientSecretName). */
function observedTls(revision: Owned): Record<string, unknown> {
  const spec = revision.spec ?? {};
  return { tlsServerSecretName: spec.tlsServerSecretName, tlsClientSecretName: spec.tlsClientSecretName };
}

/** What Crossplane leaves once a Provider is installed and healthy. */
export async function crossplaneProviderInstall(
  client: KubeClient,
  input: ProviderInstall,
): Promise<ProviderInstalled> {
  const { ca, core } = await crossplaneCore(client, input.namespace);
  let revision = await create<Owned>(client, desiredRevision(input.provider, input.digest), CROSSPLANE);
  revision = await put<Owned>(client, {
    ...revision,
    metadata: { ...revision.metadata, finalizers: [REVISION_FINALIZER] },
  });
  const runtimeInput: RuntimeInput = {
    revision: revision as never,
    namespace: input.namespace,
    runtimeConfig: {
      apiVersion: 'pkg.crossplane.io/v1beta1',
      kind: 'DeploymentRuntimeConfig',
      metadata: { name: 'default' },
      spec: {},
    },
    kind: PROVIDER_RUNTIME,
  };
  const runtime = await crossplaneRuntime(client, runtimeInput, ca);
  const { mrds, crds } = await crossplaneMrds(client, revision, input);
  const objectRefs = sortedRefs(mrds.map((o) => refTo(o, false)));
  const conditions = [healthy('RevisionHealthy'), healthy('RuntimeHealthy')];
  revision = await put<Owned>(
    client,
    { ...revision, status: { conditions, objectRefs, resolvedImage: revision.spec?.image, ...observedTls(revision) } },
    '/status',
  );
  const deployment = runtime.find((o) => o.kind === 'Deployment') as Owned;
  const rbac = await crossplaneRbac(client, revision, deployment);
  const installed = { type: 'Installed', status: 'True', reason: 'ActivePackageRevision', lastTransitionTime: now() };
  const provider = await must<Stored>(client, input.provider);
  const status = {
    conditions: [installed, healthy('Healthy')],
    currentRevision: revision.metadata.name,
    currentIdentifier: provider.spec?.package,
    resolvedPackage: provider.spec?.package,
  };
  await put(client, { ...provider, status }, '/status');
  return { revision, mrds, crds, runtime, core, rbac };
}
