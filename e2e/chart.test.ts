import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../src/apis/index.js';
import { parseValue, START_FLAGS } from '../src/cli/index.js';
import { resolveBinaries } from './controlplane/index.js';

// The Helm chart charts/compositor: lint, render with the default values and with every value set, check the
// container arguments against compositor's own flag definitions, the values schema, and that the chart's CRDs are
// the ones compositor ships. No cluster needed; helm is built and cached by e2e/controlplane/build.sh when missing.

const ROOT = packageRoot();
const CHART = join(ROOT, 'charts', 'compositor');
const ALL_FLAGS_VALUES = join(CHART, 'ci', 'all-flags-values.yaml');
const NAMESPACE = 'compositor-system';
// Every render here uses helm's defaults, as a user's first `helm template` does: no --kube-version (a helm built
// without its release ldflags, as e2e/controlplane/build.sh builds it, assumes v1.20) and no cluster.
// Flags the chart sets itself (--install-crds=false: the chart installs the CRDs) or never needs (--kubeconfig: the
// pod uses its ServiceAccount). Every other flag must have a value, so a flag added without one fails here.
const NOT_FROM_VALUES = new Set(['kubeconfig', 'install-crds']);
const AGGREGATE_TO_COMPOSITOR = 'compositor.crossplane.io/aggregate-to-compositor';
const AGGREGATE_TO_CROSSPLANE = 'rbac.crossplane.io/aggregate-to-crossplane';

interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface Container {
  name: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: {
    strategy?: { type: string };
    template?: {
      spec: {
        serviceAccountName?: string;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
        volumes?: { name: string; secret?: { secretName: string } }[];
      };
    };
    minAvailable?: number | string;
  };
  aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
  rules?: PolicyRule[];
  subjects?: { kind: string; name: string; namespace?: string }[];
}

let helmPath = '';

function helm(...args: string[]): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(helmPath, args, { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(new Error(`cannot run ${helmPath}: ${error.message}`, { cause: error }));
    });
  });
}

function template(...extra: string[]): Promise<HelmResult> {
  return helm('template', 'compositor', CHART, '--namespace', NAMESPACE, ...extra);
}

async function render(...extra: string[]): Promise<Manifest[]> {
  const result = await template(...extra);
  expect(result.code, result.stderr).to.equal(0);
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(result.stdout)) {
    expect(doc.errors.map(String), 'rendered YAML').to.deep.equal([]);
    const manifest = doc.toJS() as Manifest | null;
    if (manifest) manifests.push(manifest);
  }
  return manifests;
}

function find(manifests: readonly Manifest[], kind: string, name?: string): Manifest | undefined {
  return manifests.find((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
}

function only(manifests: readonly Manifest[], kind: string, name?: string): Manifest {
  const found = find(manifests, kind, name);
  expect(found, `a ${kind}${name ? ` ${name}` : ''} is rendered`).to.not.equal(undefined);
  return found as Manifest;
}

function container(manifests: readonly Manifest[]): Container {
  const containers = only(manifests, 'Deployment').spec?.template?.spec.containers ?? [];
  expect(containers.map((c) => c.name)).to.deep.equal(['compositor']);
  return containers[0] as Container;
}

/** The container's `--<flag>=<value>` arguments as [flag, value] pairs, in order. */
function flagArgs(manifests: readonly Manifest[]): [string, string][] {
  const args = container(manifests).args ?? [];
  expect(args[0]).to.equal('start');
  return args.slice(1).map((arg) => {
    const match = /^--([a-z0-9-]+)=(.*)$/s.exec(arg);
    expect(match, `argument ${arg} has the form --<flag>=<value>`).to.not.equal(null);
    return [match?.[1] ?? '', match?.[2] ?? ''];
  });
}

/** Every argument compositor knows must be accepted by the parser compositor itself uses for that flag. */
function expectParsable(args: readonly [string, string][]): void {
  for (const [name, value] of args) {
    const flag = START_FLAGS.find((f) => f.name === name);
    if (!flag) continue; // a flag being added in the same change as the chart's value: not parsed yet
    expect(() => parseValue(flag.kind, value), `--${name}=${value}`).to.not.throw();
  }
}

function lintProblems(output: string): string[] {
  return output.split('\n').filter((line) => /\[(WARNING|ERROR)\]/.test(line));
}

describe('charts/compositor', function () {
  this.timeout(60_000);

  before(async function () {
    this.timeout(30 * 60_000); // a cold helm build from its Go module takes minutes
    helmPath = (await resolveBinaries(['helm'])).helm;
  });

  describe('helm lint', () => {
    it('passes with the default values', async () => {
      const result = await helm('lint', '--strict', CHART);
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      expect(lintProblems(result.stdout + result.stderr)).to.deep.equal([]);
    });

    it('passes with every value set (ci/all-flags-values.yaml)', async () => {
      const result = await helm('lint', '--strict', CHART, '--values', ALL_FLAGS_VALUES);
      expect(result.code, result.stdout + result.stderr).to.equal(0);
      expect(lintProblems(result.stdout + result.stderr)).to.deep.equal([]);
    });
  });

  describe('Kubernetes version', () => {
    it("renders with helm's default version, as `helm template compositor charts/compositor` runs it", async () => {
      const result = await helm('template', 'compositor', CHART);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.include('kind: ValidatingAdmissionPolicy\n');
    });

    // Installed on a cluster, helm's API versions come from discovery and name kinds (apps/v1/Deployment); that is
    // what --api-versions stands in for here.
    const OLD_CLUSTER = ['--api-versions', 'apps/v1/Deployment'];
    const VAP = ['--api-versions', 'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy'];

    it('fails with one message on a cluster without ValidatingAdmissionPolicy v1 (before Kubernetes 1.30)', async () => {
      const result = await template(...OLD_CLUSTER);
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(
        'usages.enabled needs Kubernetes 1.30 or later: the cluster does not serve admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (set usages.enabled=false to install without Usages)',
      );
    });

    it('installs there without Usages, and on a cluster that serves the policy with them', async () => {
      const withoutUsages = await render(...OLD_CLUSTER, '--set', 'usages.enabled=false');
      expect(find(withoutUsages, 'ValidatingAdmissionPolicy')).to.equal(undefined);
      only(await render(...OLD_CLUSTER, ...VAP), 'ValidatingAdmissionPolicy');
    });
  });

  describe('with the default values', () => {
    let manifests: Manifest[];
    before(async () => {
      manifests = await render();
    });

    it('runs `compositor start` without installing CRDs, without leader election, one pod at a time', () => {
      const args = container(manifests).args ?? [];
      expect(args).to.include('--install-crds=false');
      expect(args).to.include('--leader-election=false');
      expect(args).to.not.include('--leader-election=true');
      expect(args).to.include(`--leader-election-namespace=${NAMESPACE}`);
      expect(args.some((arg) => arg.startsWith('--kubeconfig'))).to.equal(false);
      expect(only(manifests, 'Deployment').spec?.strategy?.type).to.equal('Recreate');
      expect(find(manifests, 'PodDisruptionBudget')).to.equal(undefined);
      expect(find(manifests, 'ServiceMonitor')).to.equal(undefined);
    });

    it('passes only values compositor accepts', () => {
      expectParsable(flagArgs(manifests));
    });

    it('probes /healthz and /readyz on the health port and exposes metrics', () => {
      const c = container(manifests);
      expect(c.ports).to.deep.include({ name: 'metrics', containerPort: 8080, protocol: 'TCP' });
      expect(c.ports).to.deep.include({ name: 'health', containerPort: 8081, protocol: 'TCP' });
      expect(c.args).to.include.members(['--metrics-bind-address=:8080', '--health-probe-bind-address=:8081']);
      expect(c.livenessProbe?.httpGet).to.deep.equal({ path: '/healthz', port: 'health' });
      expect(c.readinessProbe?.httpGet).to.deep.equal({ path: '/readyz', port: 'health' });
      expect(only(manifests, 'Service', 'compositor-metrics').metadata.namespace).to.equal(NAMESPACE);
    });

    it('runs as non-root with a read-only root filesystem and a writable /tmp', () => {
      const c = container(manifests);
      expect(c.securityContext?.readOnlyRootFilesystem).to.equal(true);
      expect(c.securityContext?.allowPrivilegeEscalation).to.equal(false);
      expect(only(manifests, 'Deployment').spec?.template?.spec.securityContext?.runAsNonRoot).to.equal(true);
      expect(c.volumeMounts).to.deep.include({ name: 'tmp', mountPath: '/tmp' });
    });

    it('binds an aggregated ClusterRole to the ServiceAccount, with the base rules aggregated into it', () => {
      const role = only(manifests, 'ClusterRole', 'compositor');
      expect(role.aggregationRule?.clusterRoleSelectors).to.deep.equal([
        { matchLabels: { [AGGREGATE_TO_COMPOSITOR]: 'true' } },
        { matchLabels: { [AGGREGATE_TO_CROSSPLANE]: 'true' } },
      ]);
      const system = only(manifests, 'ClusterRole', 'compositor:system');
      expect(system.metadata.labels?.[AGGREGATE_TO_COMPOSITOR]).to.equal('true');
      const groups = (system.rules ?? []).flatMap((rule) => rule.apiGroups);
      expect(groups).to.include.members([
        'apiextensions.k8s.io',
        'apiextensions.crossplane.io',
        'pkg.crossplane.io',
        'coordination.k8s.io',
        'events.k8s.io',
        'rbac.authorization.k8s.io',
      ]);
      expect(only(manifests, 'ClusterRole', 'compositor:composed').rules).to.deep.equal([]);
      const binding = only(manifests, 'ClusterRoleBinding', 'compositor');
      expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'compositor', namespace: NAMESPACE }]);
      expect(only(manifests, 'ServiceAccount', 'compositor').metadata.namespace).to.equal(NAMESPACE);
    });

    it('grants Functions, FunctionRevisions and DeploymentRuntimeConfigs with their status, and the runtime by a Role in its namespace', () => {
      const system = only(manifests, 'ClusterRole', 'compositor:system');
      const pkg = (system.rules ?? []).find((rule) => rule.apiGroups.includes('pkg.crossplane.io'));
      expect(pkg?.resources).to.include.members([
        'functions',
        'functions/status',
        'functionrevisions',
        'functionrevisions/status',
        'deploymentruntimeconfigs',
      ]);
      expect(pkg?.resources).not.to.include('*');
      // --package-runtime=Deployment is the default: Deployments, Services, ServiceAccounts and Secrets, here only.
      expect(only(manifests, 'Role', 'compositor:packages').metadata.namespace).to.equal(NAMESPACE);
      expect(container(manifests).args).to.include('--package-runtime=Deployment');
    });

    it('with packageRuntime External, grants no namespaced Role', async () => {
      const external = await render('--set', 'functions.packageRuntime=External');
      expect(find(external, 'Role')).to.equal(undefined);
      expect(container(external).args).to.include('--package-runtime=External');
    });

    it('renders no CRD from templates (helm installs crds/ first)', () => {
      expect(find(manifests, 'CustomResourceDefinition')).to.equal(undefined);
    });
  });

  describe('with every value set (ci/all-flags-values.yaml)', () => {
    let manifests: Manifest[];
    before(async () => {
      manifests = await render('--values', ALL_FLAGS_VALUES);
    });

    it('passes every flag of `compositor start` (START_FLAGS) to the container', () => {
      // The last argument is ci/all-flags-values.yaml's one extraArgs entry, not a value of the chart's own.
      const passed = new Set(
        flagArgs(manifests)
          .slice(0, -1)
          .map(([name]) => name),
      );
      const missing = START_FLAGS.map((flag) => flag.name).filter(
        (name) => !NOT_FROM_VALUES.has(name) && !passed.has(name),
      );
      expect(
        missing,
        'flags without a chart value (add one to values.yaml, the schema and _helpers.tpl)',
      ).to.deep.equal([]);
    });

    it('passes only values compositor accepts', () => {
      expectParsable(flagArgs(manifests));
    });

    it('turns leader election on for two replicas and keeps one pod through disruptions', () => {
      const args = container(manifests).args ?? [];
      expect(args).to.include('--leader-election=true');
      expect(args).to.include('--leader-election-namespace=compositor-leases');
      expect(only(manifests, 'Deployment').spec?.strategy?.type).to.equal('RollingUpdate');
      expect(only(manifests, 'PodDisruptionBudget').spec?.minAvailable).to.equal(1);
    });

    it('renders the ServiceMonitor and the metrics Service on the chosen port', () => {
      expect(only(manifests, 'ServiceMonitor').apiVersion).to.equal('monitoring.coreos.com/v1');
      only(manifests, 'Service', 'platform-compositor-metrics');
      expect(container(manifests).args).to.include('--metrics-bind-address=:9090');
    });

    it('mounts the function TLS secret read-only at --function-tls-dir', () => {
      const c = container(manifests);
      expect(c.args).to.include('--function-tls-dir=/etc/compositor/function-tls');
      expect(c.volumeMounts).to.deep.include({
        name: 'function-tls',
        mountPath: '/etc/compositor/function-tls',
        readOnly: true,
      });
      const volumes = only(manifests, 'Deployment').spec?.template?.spec.volumes ?? [];
      expect(volumes.find((v) => v.name === 'function-tls')?.secret?.secretName).to.equal('crossplane-tls-client');
    });

    it('with packageRuntime Deployment, grants the runtime kinds and Secrets by a Role in its namespace only', () => {
      const role = only(manifests, 'Role', 'platform-compositor:packages');
      expect(role.metadata.namespace).to.equal('compositor-leases');
      expect(role.rules?.flatMap((rule) => rule.resources)).to.have.members([
        'deployments',
        'services',
        'serviceaccounts',
        'secrets',
      ]);
      const binding = only(manifests, 'RoleBinding', 'platform-compositor:packages');
      expect(binding.metadata.namespace).to.equal('compositor-leases');
      expect(binding.subjects).to.deep.equal([
        { kind: 'ServiceAccount', name: 'compositor-controller', namespace: NAMESPACE },
      ]);
      expect(container(manifests).args).to.include('--package-runtime=Deployment');
    });

    it('grants the listed composed kinds and the nop provider kinds, and no RBAC-manager verbs', () => {
      const composed = only(manifests, 'ClusterRole', 'platform-compositor:composed');
      expect(composed.metadata.labels?.[AGGREGATE_TO_COMPOSITOR]).to.equal('true');
      expect((composed.rules ?? []).map((rule) => [rule.apiGroups, rule.resources])).to.deep.equal([
        [['apps'], ['deployments']],
        [[''], ['configmaps', 'services']],
        [
          ['nop.compositor.crossplane.io', 'nop.crossplane.io'],
          ['nopresources', 'nopresources/status', 'nopresources/finalizers'],
        ],
      ]);
      const system = only(manifests, 'ClusterRole', 'platform-compositor:system');
      expect((system.rules ?? []).flatMap((rule) => rule.apiGroups)).to.not.include('rbac.authorization.k8s.io');
      const role = only(manifests, 'ClusterRole', 'platform-compositor');
      expect(role.aggregationRule?.clusterRoleSelectors).to.deep.equal([
        { matchLabels: { [AGGREGATE_TO_COMPOSITOR]: 'true' } },
      ]);
    });

    it('appends extraArgs after the chart flags', () => {
      expect((container(manifests).args ?? []).at(-1)).to.equal('--log-level=trace');
    });
  });

  it('grants the ops.crossplane.io kinds only with operations.enabled (--enable-operations)', async () => {
    const opsRules = (manifests: readonly Manifest[]): string[][] =>
      (only(manifests, 'ClusterRole', 'compositor:system').rules ?? [])
        .filter((rule) => rule.apiGroups.includes('ops.crossplane.io'))
        .map((rule) => rule.resources);
    expect(opsRules(await render())).to.deep.equal([]);
    const enabled = await render('--set', 'operations.enabled=true');
    expect(container(enabled).args).to.include('--enable-operations=true');
    expect(opsRules(enabled)).to.deep.equal([
      [
        'operations',
        'operations/status',
        'cronoperations',
        'cronoperations/status',
        'watchoperations',
        'watchoperations/status',
        'watchoperations/finalizers',
      ],
    ]);
  });

  it('grants the provider kinds only with providers.enabled (--enable-providers)', async () => {
    const providerRules = (manifests: readonly Manifest[]): string[][] =>
      (only(manifests, 'ClusterRole', 'compositor:system').rules ?? [])
        .filter((rule) => rule.apiGroups.includes('pkg.crossplane.io') && rule.resources.includes('providers'))
        .map((rule) => rule.resources);
    expect(providerRules(await render())).to.deep.equal([]);
    const enabled = await render('--set', 'providers.enabled=true');
    expect(container(enabled).args).to.include('--enable-providers=true');
    expect(providerRules(enabled)).to.deep.equal([
      [
        'providers',
        'providers/status',
        'providers/finalizers',
        'providerrevisions',
        'providerrevisions/status',
        'providerrevisions/finalizers',
      ],
    ]);
    const webhookRules = (manifests: readonly Manifest[]): string[][] =>
      (only(manifests, 'ClusterRole', 'compositor:system').rules ?? [])
        .filter((rule) => rule.apiGroups.includes('admissionregistration.k8s.io'))
        .map((rule) => rule.resources);
    expect(webhookRules(await render())).to.deep.equal([]);
    expect(webhookRules(enabled)).to.deep.equal([['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']]);
  });

  it("grants the RBAC manager's verbs for provider roles only with providers.enabled and rbac.manageProviderRoles", async () => {
    const rbacRules = (manifests: readonly Manifest[]): [string[], string[]][] =>
      (only(manifests, 'ClusterRole', 'compositor:system').rules ?? [])
        .filter((rule) => rule.apiGroups.includes('rbac.authorization.k8s.io'))
        .map((rule) => [rule.resources, rule.verbs]);
    const composite: [string[], string[]] = [
      ['clusterroles'],
      ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'escalate'],
    ];
    expect(rbacRules(await render())).to.deep.equal([composite]);
    const enabled = await render('--set', 'providers.enabled=true');
    expect(container(enabled).args).to.include('--manage-provider-rbac=true');
    // Server-side apply after a read: get, create and patch; escalate and bind for the rights the roles grant.
    expect(rbacRules(enabled)).to.deep.equal([
      composite,
      [['clusterroles'], ['get', 'create', 'patch', 'escalate', 'bind']],
      [['clusterrolebindings'], ['get', 'create', 'patch']],
    ]);
    // null leaves the flag out, so compositor's default (on) applies: the rights follow it.
    const unset = await render('--set', 'providers.enabled=true', '--set', 'rbac.manageProviderRoles=null');
    expect((container(unset).args ?? []).filter((a) => a.startsWith('--manage-provider-rbac'))).to.deep.equal([]);
    expect(rbacRules(unset)).to.deep.equal(rbacRules(enabled));
    const off = await render('--set', 'providers.enabled=true', '--set', 'rbac.manageProviderRoles=false');
    expect(container(off).args).to.include('--manage-provider-rbac=false');
    expect(rbacRules(off)).to.deep.equal([composite]);
  });

  it('turns leader election and the PodDisruptionBudget on when replicas > 1, whatever leaderElection.enabled says', async () => {
    const manifests = await render('--set', 'replicas=3', '--set', 'leaderElection.enabled=false');
    expect(container(manifests).args).to.include('--leader-election=true');
    only(manifests, 'PodDisruptionBudget');
  });

  it('omits a flag whose value is null, so compositor applies its own default', async () => {
    const args = container(await render('--set', 'pollInterval=null')).args ?? [];
    expect(args.some((arg) => arg.startsWith('--poll-interval='))).to.equal(false);
  });

  describe('values schema', () => {
    it('rejects a wrong type, naming the value', async () => {
      const result = await template('--set-string', 'circuitBreaker.burst=lots');
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include('/circuitBreaker/burst');
      expect(result.stderr).to.match(/got string, want .*number/);
    });

    it('rejects a misspelt value', async () => {
      const result = await template('--set', 'circuitBreaker.brust=3');
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include("additional properties 'brust' not allowed");
    });

    it('rejects a duration compositor would not parse', async () => {
      const result = await template('--set', 'pollInterval=5 minutes');
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include('/pollInterval');
    });
  });

  it('ships the CRDs compositor ships (sync charts/compositor/crds with src/apis/crds)', () => {
    const source = join(ROOT, 'src', 'apis', 'crds');
    const copies = join(CHART, 'crds');
    const yamlFiles = (dir: string): string[] =>
      readdirSync(dir)
        .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
        .sort();
    const files = yamlFiles(source);
    expect(files).to.not.deep.equal([]);
    expect(yamlFiles(copies), `cp ${source}/*.yaml ${copies}/`).to.deep.equal(files);
    for (const file of files) {
      const same = readFileSync(join(source, file)).equals(readFileSync(join(copies, file)));
      expect(same, `charts/compositor/crds/${file} differs from src/apis/crds/${file}: copy it over`).to.equal(true);
    }
  });
});
