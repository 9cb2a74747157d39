import { expect } from 'chai';
import { loadCrds, type CustomResourceDefinition } from '../../../src/apis/index.js';

// The ops.crossplane.io CRDs against facts of Crossplane v2's (cluster/crds/ops.crossplane.io_*.yaml, generated from
// apis/ops/v1alpha1): what they enforce, default and keep.

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema; required?: string[] };

let crds: CustomResourceDefinition[] = [];

before(async () => {
  crds = await loadCrds();
});

function crd(plural: string): { spec: Record<string, unknown>; schema: Schema } {
  const found = crds.find((c) => c.metadata.name === `${plural}.ops.crossplane.io`);
  if (!found) throw new Error(`compositor ships no CRD ${plural}.ops.crossplane.io`);
  const [version] = found.spec.versions as { name: string; schema: { openAPIV3Schema: Schema } }[];
  return { spec: found.spec, schema: version?.schema.openAPIV3Schema ?? {} };
}

function at(schema: Schema, path: string): Schema {
  let current = schema;
  for (const step of path.split('.')) {
    const next = step === '[]' ? current.items : current.properties?.[step];
    if (!next) throw new Error(`no schema at ${path} (stopped at ${step})`);
    current = next;
  }
  return current;
}

describe('apis/crds: the ops.crossplane.io CRDs are Crossplane v2s', () => {
  const kinds: Record<string, { kind: string; short: string; columns: string[] }> = {
    operations: { kind: 'Operation', short: 'ops', columns: ['SYNCED', 'SUCCEEDED', 'AGE'] },
    cronoperations: {
      kind: 'CronOperation',
      short: 'cronops',
      columns: ['SCHEDULE', 'SYNCED', 'SCHEDULING', 'LAST SCHEDULE', 'LAST SUCCESS', 'AGE'],
    },
    watchoperations: {
      kind: 'WatchOperation',
      short: 'watchops',
      columns: ['KIND', 'COUNT', 'SYNCED', 'WATCHING', 'LAST SCHEDULE', 'LAST SUCCESS', 'AGE'],
    },
  };
  for (const [plural, { kind, short, columns }] of Object.entries(kinds)) {
    it(`${kind}: cluster-scoped v1alpha1 with upstream's names, status subresource and printer columns`, () => {
      const { spec } = crd(plural);
      expect(spec).to.include({ group: 'ops.crossplane.io', scope: 'Cluster' });
      expect(spec.names).to.deep.include({ kind, shortNames: [short], categories: ['crossplane'] });
      const [version] = spec.versions as {
        name: string;
        subresources: unknown;
        additionalPrinterColumns: { name: string }[];
      }[];
      expect(version?.name).to.equal('v1alpha1');
      expect(version?.subresources).to.deep.equal({ status: {} });
      expect(version?.additionalPrinterColumns.map((c) => c.name)).to.deep.equal(columns);
    });
  }

  it('Operation: a pipeline of 1 to 99 steps keyed by step, Pipeline mode by default, input kept as written', () => {
    const spec = at(crd('operations').schema, 'spec');
    expect(spec.required).to.have.members(['mode', 'pipeline']);
    expect(at(spec, 'mode')).to.deep.include({ default: 'Pipeline', enum: ['Pipeline'] });
    expect(at(spec, 'pipeline')).to.include({ minItems: 1, maxItems: 99, 'x-kubernetes-list-type': 'map' });
    expect(at(spec, 'pipeline.[].input')).to.include({
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(at(spec, 'retryLimit')).to.include({ type: 'integer', format: 'int64' });
    expect(at(crd('operations').schema, 'status.pipeline.[].output')).to.include({
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('CronOperation and WatchOperation: Allow, 3 succeeded and 1 failed Operations kept by default', () => {
    for (const plural of ['cronoperations', 'watchoperations']) {
      const spec = at(crd(plural).schema, 'spec');
      expect(at(spec, 'concurrencyPolicy')).to.deep.include({ default: 'Allow', enum: ['Allow', 'Forbid', 'Replace'] });
      expect(at(spec, 'successfulHistoryLimit')).to.include({ default: 3 });
      expect(at(spec, 'failedHistoryLimit')).to.include({ default: 1 });
    }
    expect(at(crd('cronoperations').schema, 'spec').required).to.have.members(['operationTemplate', 'schedule']);
  });

  it("WatchOperation: the watched kind's apiVersion and kind are immutable", () => {
    const watch = at(crd('watchoperations').schema, 'spec.watch');
    for (const field of ['apiVersion', 'kind']) {
      expect(at(watch, field)['x-kubernetes-validations']).to.deep.equal([
        { message: `${field} is immutable`, rule: 'self == oldSelf' },
      ]);
    }
  });
});
