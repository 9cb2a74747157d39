import { expect } from 'chai';
import {
  checkCrossplaneVersion,
  lintPackage,
  PackageParseError,
  parsePackage,
  validatePackage,
  type PackageKind,
  type PackageMeta,
} from '../../../../src/packages/xpkg/index.js';

const provider = (extra = ''): string =>
  `apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-test\n${extra}`;
const crd =
  'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.org\n';
const xrd =
  'apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xapps.example.org\n';
const composition = 'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: app\n';

describe('parsePackage', () => {
  it('splits metadata from objects and skips empty documents', () => {
    const parsed = parsePackage(`---\n# a comment\n---\n${provider()}---\n${crd}---\n`);
    expect(parsed.meta.map((m) => m.kind)).to.deep.equal(['Provider']);
    expect(parsed.objects.map((o) => o.kind)).to.deep.equal(['CustomResourceDefinition']);
  });

  it('accepts every meta version Crossplane registers', () => {
    const metas = [
      'apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\n',
      'apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Configuration\n',
      'apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\n',
      'apiVersion: meta.pkg.crossplane.io/v1\nkind: Function\n',
    ];
    expect(parsePackage(metas.join('---\n')).meta).to.have.length(4);
  });

  const refused: Record<string, { stream: string; message: string }> = {
    'a kind neither scheme knows': {
      stream: `${provider()}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n`,
      message: 'no kind "ConfigMap" is registered for version "v1" (document 2 of package.yaml)',
    },
    'a meta kind at a version it does not have': {
      stream: 'apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Provider\n',
      message: 'no kind "Provider" is registered for version "meta.pkg.crossplane.io/v1beta1"',
    },
    'a document without kind': { stream: 'apiVersion: v1\n', message: "Object 'Kind' is missing in document 1" },
    'malformed YAML': {
      stream: `${provider()}  bad: [unclosed\n`,
      message: 'error converting YAML to JSON: document 1',
    },
    'a scalar document': { stream: 'just text\n', message: "couldn't get version/kind" },
  };
  for (const [name, { stream, message }] of Object.entries(refused)) {
    it(`refuses ${name}`, () => {
      expect(() => parsePackage(stream))
        .to.throw(PackageParseError)
        .with.property('message')
        .that.contains(message);
    });
  }
});

describe('validatePackage and lintPackage', () => {
  const cases: Record<
    string,
    { kind: PackageKind; stream: string; validate: string | undefined; lint: string | undefined }
  > = {
    'a clean provider': { kind: 'Provider', stream: `${provider()}---\n${crd}`, validate: undefined, lint: undefined },
    'no metadata': {
      kind: 'Provider',
      stream: crd,
      validate: 'not exactly one package meta type',
      lint: 'not exactly one package meta type',
    },
    'two metadata objects': {
      kind: 'Provider',
      stream: `${provider()}---\n${provider()}`,
      validate: 'not exactly one package meta type',
      lint: 'not exactly one package meta type',
    },
    'a provider installed as a function': {
      kind: 'Function',
      stream: provider(),
      validate: 'package meta type is not Function',
      lint: 'package meta type is not Function',
    },
    'a bad constraint': {
      kind: 'Provider',
      stream: provider('spec:\n  crossplane:\n    version: "not a range"\n'),
      validate: 'package version constraints are poorly formatted: improper constraint: not a range',
      lint: 'package version constraints are poorly formatted: improper constraint: not a range',
    },
    'a provider carrying an XRD': {
      kind: 'Provider',
      stream: `${provider()}---\n${xrd}`,
      validate: undefined,
      lint: 'object did not pass any of the linters with following errors: object is not a CRD, object is not an MRD, object is not an ValidatingWebhookConfiguration, object is not a MutatingWebhookConfiguration',
    },
    'a configuration carrying a CRD': {
      kind: 'Configuration',
      stream: `apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Configuration\n---\n${xrd}---\n${composition}---\n${crd}`,
      validate: undefined,
      lint: 'object did not pass any of the linters with following errors: object is not an XRD, object is not an ManagedResourceActivationPolicy, object is not a Composition, object is not an Operation, object is not a CronOperation, object is not a WatchOperation',
    },
    'a function carrying a Composition': {
      kind: 'Function',
      stream: `apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\n---\n${crd}---\n${composition}`,
      validate: undefined,
      lint: 'object is not a CRD',
    },
  };
  for (const [name, { kind, stream, validate, lint }] of Object.entries(cases)) {
    it(`judges ${name}`, () => {
      const parsed = parsePackage(stream);
      expect(validatePackage(kind, parsed), 'validate').to.equal(validate);
      expect(lintPackage(kind, parsed), 'lint').to.equal(lint);
    });
  }
});

describe('checkCrossplaneVersion', () => {
  const meta = (version?: string): PackageMeta => ({
    apiVersion: 'meta.pkg.crossplane.io/v1',
    kind: 'Configuration',
    ...(version !== undefined ? { spec: { crossplane: { version } } } : {}),
  });
  const cases: Record<string, { constraint?: string; version: string; compatible: boolean }> = {
    'no constraint': { version: 'v2.0.0', compatible: true },
    'a prerelease floor admits releases above it': { constraint: '>=v1.14.1-0', version: 'v2.1.0', compatible: true },
    'a prerelease floor admits prereleases': { constraint: '>=v1.14.1-0', version: 'v2.1.0-rc.1', compatible: true },
    'a release range refuses prereleases': { constraint: '>=v1.14.1', version: 'v2.1.0-rc.1', compatible: false },
    'a comma means and': { constraint: '>=1.0, <2.0', version: 'v2.0.0', compatible: false },
    'or alternatives': { constraint: '<1.0 || >=2.0', version: 'v2.0.0', compatible: true },
    'not equal': { constraint: '>=1.0 != 1.5.0', version: '1.5.0', compatible: false },
    'a caret range': { constraint: '^1.14', version: 'v2.0.0', compatible: false },
  };
  for (const [name, { constraint, version, compatible }] of Object.entries(cases)) {
    it(`decides ${name}`, () => {
      const result = checkCrossplaneVersion(meta(constraint), version);
      if (compatible) expect(result).to.equal(undefined);
      else expect(result).to.equal(`package is not compatible with Crossplane version (${version})`);
    });
  }
});
