import { expect } from 'chai';
import { loadCrds, type CustomResourceDefinition } from '../../../src/apis/index.js';

// compositor's core CRDs against facts of Crossplane v2.3's (its cluster/crds, generated from its API types): the
// constraints it enforces and where it prunes. Each assertion names one upstream fact; docs/crds.md lists the rest.

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  'x-kubernetes-validations'?: { rule: string; message: string }[];
};

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  schema: { openAPIV3Schema: Schema };
}

let crds: CustomResourceDefinition[] = [];

before(async () => {
  crds = await loadCrds();
});

function version(crdName: string, name: string): Version {
  const crd = crds.find((c) => c.metadata.name === crdName);
  if (!crd) throw new Error(`compositor ships no CRD ${crdName}`);
  const found = (crd.spec.versions as Version[]).find((v) => v.name === name);
  if (!found) throw new Error(`CRD ${crdName} has no version ${name}`);
  return found;
}

/** The schema at a dotted path; `[]` steps into array items. */
function at(schema: Schema, path: string): Schema {
  let current: Schema = schema;
  for (const step of path.split('.')) {
    const next: Schema | undefined = step === '[]' ? current.items : current.properties?.[step];
    if (!next) throw new Error(`no schema at ${path} (stopped at ${step})`);
    current = next;
  }
  return current;
}

/** Every path in a schema that keeps unknown fields. */
function preserving(schema: Schema, path = ''): string[] {
  const own = schema['x-kubernetes-preserve-unknown-fields'] === true ? [path || '.'] : [];
  const children = Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
    preserving(child, path ? `${path}.${key}` : key),
  );
  const items = schema.items ? preserving(schema.items, `${path}.[]`) : [];
  return [...own, ...children, ...items];
}

const rules = (schema: Schema): string[] => (schema['x-kubernetes-validations'] ?? []).map((v) => v.rule);

const COMPOSITIONS = 'compositions.apiextensions.crossplane.io';
const REVISIONS = 'compositionrevisions.apiextensions.crossplane.io';
const XRDS = 'compositeresourcedefinitions.apiextensions.crossplane.io';
const ENVIRONMENT_CONFIGS = 'environmentconfigs.apiextensions.crossplane.io';

describe('apis/crds: the core CRDs carry Crossplane v2.3s constraints', () => {
  it('Composition: compositeTypeRef is immutable', () => {
    const schema = version(COMPOSITIONS, 'v1').schema.openAPIV3Schema;
    expect(rules(at(schema, 'spec.compositeTypeRef'))).to.deep.equal(['self == oldSelf']);
  });

  it('Composition: a pipeline has 1 to 99 steps, keyed by step name, and is required in Pipeline mode', () => {
    const spec = at(version(COMPOSITIONS, 'v1').schema.openAPIV3Schema, 'spec');
    expect(at(spec, 'pipeline')).to.include({ minItems: 1, maxItems: 99, 'x-kubernetes-list-type': 'map' });
    expect(at(spec, 'pipeline')['x-kubernetes-list-map-keys']).to.deep.equal(['step']);
    expect(at(spec, 'pipeline.[]').required).to.have.members(['step', 'functionRef']);
    expect(rules(spec)).to.deep.equal(["self.mode == 'Pipeline' && has(self.pipeline)"]);
    expect(at(spec, 'mode')).to.deep.include({ default: 'Pipeline', enum: ['Pipeline'] });
  });

  it('CompositionRevision: compositeTypeRef is immutable and revision a required int64', () => {
    const spec = at(version(REVISIONS, 'v1').schema.openAPIV3Schema, 'spec');
    expect(rules(at(spec, 'compositeTypeRef'))).to.deep.equal(['self == oldSelf']);
    expect(spec.required).to.have.members(['compositeTypeRef', 'revision']);
    expect(at(spec, 'revision')).to.include({ type: 'integer', format: 'int64' });
  });

  it('XRD: group, names, scope and enforcedCompositionRef are immutable in both versions', () => {
    for (const name of ['v1', 'v2']) {
      const spec = at(version(XRDS, name).schema.openAPIV3Schema, 'spec');
      for (const field of ['group', 'names', 'scope', 'enforcedCompositionRef']) {
        expect(rules(at(spec, field)), `${name} ${field}`).to.include('self == oldSelf');
      }
    }
  });

  it('XRD: v1 is the deprecated storage version defaulting to LegacyCluster; v2 defaults to Namespaced', () => {
    const v1 = version(XRDS, 'v1');
    const v2 = version(XRDS, 'v2');
    expect(v1).to.include({ storage: true, served: true, deprecated: true });
    expect(v2).to.include({ storage: false, served: true });
    expect(at(v1.schema.openAPIV3Schema, 'spec.scope')).to.deep.include({
      default: 'LegacyCluster',
      enum: ['LegacyCluster', 'Namespaced', 'Cluster'],
    });
    expect(at(v2.schema.openAPIV3Schema, 'spec.scope')).to.deep.include({
      default: 'Namespaced',
      enum: ['Namespaced', 'Cluster'],
    });
    expect(at(v2.schema.openAPIV3Schema, 'spec.defaultCompositeDeletePolicy')).not.to.have.key('default');
    expect(at(v1.schema.openAPIV3Schema, 'spec.versions.[].deprecationWarning')).to.include({ maxLength: 256 });
  });

  it('XRD: only LegacyCluster XRDs offer claims or connection secrets', () => {
    expect(rules(at(version(XRDS, 'v1').schema.openAPIV3Schema, 'spec'))).to.deep.equal([
      "self.scope == 'LegacyCluster' || !has(self.claimNames)",
      "self.scope == 'LegacyCluster' || !has(self.connectionSecretKeys)",
    ]);
    expect(rules(at(version(XRDS, 'v2').schema.openAPIV3Schema, 'spec'))).to.deep.equal([
      "!has(self.claimNames) || self.scope == 'LegacyCluster'",
      "!has(self.connectionSecretKeys) || self.scope == 'LegacyCluster'",
    ]);
  });

  const pruned: Record<string, { crd: string; version: string; keeps: string[] }> = {
    'Composition v1': { crd: COMPOSITIONS, version: 'v1', keeps: ['spec.pipeline.[].input'] },
    'CompositionRevision v1': { crd: REVISIONS, version: 'v1', keeps: ['spec.pipeline.[].input'] },
    'XRD v1': { crd: XRDS, version: 'v1', keeps: ['spec.versions.[].schema.openAPIV3Schema'] },
    'XRD v2': { crd: XRDS, version: 'v2', keeps: ['spec.versions.[].schema.openAPIV3Schema'] },
  };
  for (const [name, { crd, version: v, keeps }] of Object.entries(pruned)) {
    it(`${name}: keeps unknown fields only where upstream does`, () => {
      expect(preserving(version(crd, v).schema.openAPIV3Schema)).to.deep.equal(keeps);
    });
  }

  it('EnvironmentConfig: cluster-scoped, v1beta1 only, data of any JSON kept as written', () => {
    const crd = crds.find((c) => c.metadata.name === ENVIRONMENT_CONFIGS);
    expect(crd?.spec).to.deep.include({ scope: 'Cluster', group: 'apiextensions.crossplane.io' });
    expect(crd?.spec.names).to.deep.include({ kind: 'EnvironmentConfig', shortNames: ['envcfg'] });
    expect((crd?.spec.versions as Version[]).map((v) => v.name)).to.deep.equal(['v1beta1']);
    const v1beta1 = version(ENVIRONMENT_CONFIGS, 'v1beta1');
    expect(v1beta1).to.include({ served: true, storage: true });
    expect(at(v1beta1.schema.openAPIV3Schema, 'data')).to.deep.equal({
      type: 'object',
      additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true },
    });
  });

  it('carries no labels of its own on the core CRDs, as upstream has none', () => {
    for (const name of [COMPOSITIONS, REVISIONS, XRDS, ENVIRONMENT_CONFIGS]) {
      expect(crds.find((c) => c.metadata.name === name)?.metadata.labels, name).to.equal(undefined);
    }
  });
});
