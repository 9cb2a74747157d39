import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../../src/apis/index.js';
import { runProgram, runRender, type RenderOptions } from '../../../src/cli/index.js';

const examples = join(packageRoot(), 'examples');
const XR = join(examples, '30-app.yaml');
const COMPOSITION = join(examples, '20-composition.yaml');
const FUNCTIONS = join(examples, '00-function.yaml');
const OBSERVED = join(examples, 'render', 'observed-resources.yaml');

interface Rendered {
  code: number;
  docs: Record<string, unknown>[];
  stderr: string;
}

async function render(overrides: Partial<RenderOptions> = {}): Promise<Rendered> {
  const out = { stdout: '', stderr: '' };
  const code = await runRender(
    {
      xr: XR,
      composition: COMPOSITION,
      functions: FUNCTIONS,
      includeFunctionResults: false,
      includeContext: false,
      timeoutMs: 5_000,
      ...overrides,
    },
    { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
  );
  const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Record<string, unknown>);
  return { code, docs, stderr: out.stderr };
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'compositor-render-')), name);
  writeFileSync(path, text);
  return path;
}

/**
 * The uid render gives an XR file without one (crossplane internal/render: a version 5 UUID of its kind, namespace
 * and name), and the composed name it implies: for examples/30-app.yaml (renderCrank.test.ts holds crank v2.3.4's own vector).
 */
const XR_UID = '5b55f511-08a8-5d2e-8f1e-26127b290d33';
const COMPOSED_NAME = 'example-7cedeb05c844';

const RECONCILED = [
  { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed', lastTransitionTime: '2024-01-01T00:00:00Z' },
  { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: '2024-01-01T00:00:00Z' },
];

describe('cli/render on examples/', () => {
  it('prints the XR and the composed ConfigMap with the metadata Crossplane adds', async () => {
    const { code, docs, stderr } = await render();
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(docs).to.deep.equal([
      {
        apiVersion: 'example.compositor.crossplane.io/v1',
        kind: 'App',
        metadata: { name: 'example', namespace: 'default' },
        spec: { crossplane: { resourceRefs: [{ apiVersion: 'v1', kind: 'ConfigMap', name: COMPOSED_NAME }] } },
        status: {
          conditions: [
            ...RECONCILED,
            {
              type: 'Ready',
              status: 'False',
              reason: 'Creating',
              lastTransitionTime: '2024-01-01T00:00:00Z',
              message: 'Unready resources: settings',
            },
          ],
        },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          generateName: 'example-',
          name: COMPOSED_NAME,
          namespace: 'default',
          annotations: { 'crossplane.io/composition-resource-name': 'settings' },
          labels: { 'crossplane.io/composite': 'example' },
          ownerReferences: [
            {
              apiVersion: 'example.compositor.crossplane.io/v1',
              kind: 'App',
              name: 'example',
              uid: XR_UID,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: { image: 'nginx:1.27', replicas: '2' },
      },
    ]);
  });

  it('uses observed resources: keeps their names, patches the XR status and lets auto-ready mark them ready', async () => {
    const { code, docs } = await render({ observedResources: OBSERVED, includeFunctionResults: true });
    expect(code).to.equal(0);
    const [xr, configMap] = docs as [{ status: unknown }, { metadata: { name?: string; generateName?: string } }];
    expect(xr.status).to.deep.equal({
      image: 'nginx:1.27',
      conditions: [
        ...RECONCILED,
        { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
    });
    expect(configMap.metadata.name).to.equal('example-3f1d2c4b5a69');
    expect(configMap.metadata.generateName).to.equal(undefined);
    // -r prints the reconciler's events as crank v2.3 does (cmd/crank/render/convert.go parseCompositeResponse):
    // Results with the event type as severity, in the order composite/reconciler.go Reconcile records them.
    expect(docs.slice(2)).to.deep.equal([
      {
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'Result',
        severity: 'Normal',
        reason: 'SelectComposition',
        message: 'Successfully selected composition: apps.example.compositor.crossplane.io',
      },
    ]);
  });

  it('-r: no selection event when the file already names the composition; one event per unready resource', async () => {
    // reconciler.go Reconcile records SelectComposition only when the reference is new or changed, and
    // `Composed resource %q is not yet ready` for each composed resource that is not ready.
    const xr = tempFile(
      'xr.yaml',
      'apiVersion: example.compositor.crossplane.io/v1\nkind: App\nmetadata: {name: example, namespace: default}\nspec:\n  image: nginx:1.27\n  crossplane: {compositionRef: {name: apps.example.compositor.crossplane.io}}\n',
    );
    const { code, docs } = await render({ xr, includeFunctionResults: true });
    expect(code).to.equal(0);
    expect(docs.slice(2).map((d) => [d.severity, d.reason, d.message])).to.deep.equal([
      ['Normal', 'ComposeResources', 'Composed resource "settings" is not yet ready'],
    ]);
  });

  it('-x (--include-full-xr) prints the rendered XR merged into the input XR, as crank does', async () => {
    // crossplane/cli cmd/crossplane/render/xr/cmd.go Run: mergo.Merge(&input, rendered, mergo.WithOverride).
    const input = parseAllDocuments(readFileSync(XR, 'utf8'))[0]?.toJS() as Record<string, unknown>;
    const plain = (await render()).docs[0] as Record<string, unknown>;
    const { code, docs } = await render({ includeFullXr: true });
    expect(code).to.equal(0);
    const [xr] = docs as [Record<string, unknown>];
    expect(xr.metadata).to.deep.equal(input.metadata);
    expect(xr.spec).to.deep.equal({ ...(input.spec as object), ...(plain.spec as object) });
    expect(xr.status, 'the rendered status stays').to.deep.equal(plain.status);
  });

  it("--xrd applies the schema defaults of the XR's version before the pipeline runs", async () => {
    // cmd/crank/render/cmd.go Run: DefaultValues(xr, apiVersion, xcrd.ForCompositeResource(xrd)).
    const xr = tempFile(
      'xr.yaml',
      'apiVersion: example.compositor.crossplane.io/v1\nkind: App\nmetadata: {name: example, namespace: default}\nspec: {}\n',
    );
    const xrd = tempFile(
      'xrd.yaml',
      [
        'apiVersion: apiextensions.crossplane.io/v2',
        'kind: CompositeResourceDefinition',
        'metadata: {name: apps.example.compositor.crossplane.io}',
        'spec:',
        '  group: example.compositor.crossplane.io',
        '  scope: Namespaced',
        '  names: {kind: App, plural: apps}',
        '  versions:',
        '  - name: v1',
        '    served: true',
        '    referenceable: true',
        '    schema:',
        '      openAPIV3Schema:',
        '        type: object',
        '        properties:',
        '          spec:',
        '            type: object',
        '            properties:',
        '              image: {type: string, default: "nginx:default"}',
        '',
      ].join('\n'),
    );
    const { code, docs, stderr } = await render({ xr, xrd });
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    const configMap = docs[1] as { data: Record<string, unknown> };
    expect(configMap.data.image).to.equal('nginx:default');
  });

  it('prints the selection event, what it would delete, and legacy machinery at spec.* with a v1 XRD', async () => {
    const stale = tempFile(
      'observed.yaml',
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: example-old',
        '  namespace: default',
        '  annotations: {crossplane.io/composition-resource-name: old}',
        `  ownerReferences: [{apiVersion: example.compositor.crossplane.io/v1, kind: App, name: example, uid: ${XR_UID}, controller: true}]`,
        '',
      ].join('\n'),
    );
    const legacyXrd = tempFile(
      'xrd.yaml',
      'apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata: {name: apps.example.compositor.crossplane.io}\nspec: {group: example.compositor.crossplane.io, names: {kind: App, plural: apps}, versions: [{name: v1, served: true, referenceable: true}]}\n',
    );
    const { code, docs, stderr } = await render({
      observedResources: stale,
      includeEvents: true,
      includeDeleted: true,
      xrd: legacyXrd,
    });
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    const [xr] = docs as [{ spec: Record<string, unknown> }];
    expect(xr.spec.resourceRefs).to.deep.equal([{ apiVersion: 'v1', kind: 'ConfigMap', name: COMPOSED_NAME }]);
    expect(xr.spec.crossplane).to.equal(undefined);
    expect(docs.slice(2)).to.deep.equal([
      {
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'Event',
        type: 'Normal',
        reason: 'SelectComposition',
        message: 'Successfully selected composition: apps.example.compositor.crossplane.io',
      },
      {
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'Event',
        type: 'Normal',
        reason: 'ComposeResources',
        message: 'Composed resource "settings" is not yet ready',
      },
      {
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'DeletedResource',
        resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'example-old', namespace: 'default' },
      },
    ]);
  });

  const failures: Record<string, { reason: string; options: () => Partial<RenderOptions>; want: RegExp }> = {
    malformed: {
      reason: 'a YAML syntax error names the file and the problem',
      options: () => ({ xr: tempFile('xr.yaml', 'apiVersion: v1\nkind: [oops\n') }),
      want: /^compositor render: cannot parse composite resource ".*xr\.yaml": .+ at line 3, column 1\n$/,
    },
    missing: {
      reason: 'a missing file is named',
      options: () => ({ composition: '/nonexistent/composition.yaml' }),
      want: /^compositor render: cannot read composition "\/nonexistent\/composition\.yaml": no such file\n$/,
    },
    notAMapping: {
      reason: 'a document that is not an object is rejected',
      options: () => ({ functions: tempFile('functions.yaml', '- a\n- b\n') }),
      want: /^compositor render: invalid functions ".*functions\.yaml": document 1 is not a YAML mapping\n$/,
    },
    wrongType: {
      reason: 'a Composition for another XR type is rejected',
      options: () => ({
        composition: tempFile(
          'composition.yaml',
          'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XOther}\n  mode: Pipeline\n  pipeline: []\n',
        ),
      }),
      want: /^compositor render: invalid composition ".*composition\.yaml": compositeTypeRef example\.org\/v1 XOther does not match/,
    },
    notBuiltIn: {
      reason: 'a Function that is neither built in nor annotated with a development target cannot run',
      options: () => ({
        functions: tempFile(
          'functions.yaml',
          'apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/acme/function-other:v1}\n---\napiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-auto-ready}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0}\n',
        ),
      }),
      want: /^compositor render: invalid functions ".*": Function "function-patch-and-transform" is not built in \(Running the package as written: compositor has no built-in function-other\); annotate it with render\.crossplane\.io\/runtime-development-target/,
    },
    pinnedOutsideTheBuiltinsRange: {
      reason:
        'a built-in runs only for the releases it reproduces; another release runs as written, which render cannot',
      options: () => ({
        functions: tempFile(
          'functions.yaml',
          'apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-patch-and-transform}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.9.0}\n---\napiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-auto-ready}\nspec: {package: xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0}\n',
        ),
      }),
      want: /^compositor render: invalid functions ".*": Function "function-patch-and-transform" is not built in \(Running the package as written: version v0\.9\.0 is outside the built-in function-patch-and-transform's range >=0\.10\.0 <0\.11\.0\); annotate it/,
    },
    xrdVersion: {
      reason: "an XRD without the XR's version cannot default it (crank cmd/crank/render/xrd.go DefaultValues)",
      options: () => ({
        xrd: tempFile(
          'xrd.yaml',
          'apiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata: {name: apps.example.compositor.crossplane.io}\nspec: {group: example.compositor.crossplane.io, names: {kind: App, plural: apps}, versions: [{name: v2, served: true, referenceable: true}]}\n',
        ),
      }),
      want: /^compositor render: invalid composite resource definition ".*xrd\.yaml": cannot default values for XR "example": the specified API version 'example\.compositor\.crossplane\.io\/v1' does not exist in the XRD\n$/,
    },
    invalidName: {
      reason:
        'a composed name that is no RFC 1123 subdomain fails the compose, as crossplane names.ValidateName does (crossplane#6535, text quoted in #6704)',
      options: () => ({
        composition: tempFile(
          'composition.yaml',
          'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.compositor.crossplane.io/v1, kind: App}\n  mode: Pipeline\n  pipeline:\n  - step: pt\n    functionRef: {name: function-patch-and-transform}\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n      - name: cm\n        base: {apiVersion: v1, kind: ConfigMap, metadata: {name: Bad_Name}}\n',
        ),
      }),
      want: /^compositor render: cannot compose resources: cannot apply composed resource "cm" because it has an invalid name "Bad_Name"\. Must be a valid RFC 1123 subdomain name\.\n$/,
    },
    fatal: {
      reason: 'a FATAL result from a built-in fails the render with the step named',
      options: () => ({
        composition: tempFile(
          'composition.yaml',
          'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.compositor.crossplane.io/v1, kind: App}\n  mode: Pipeline\n  pipeline:\n  - step: pt\n    functionRef: {name: function-patch-and-transform}\n    input: {apiVersion: pt.fn.crossplane.io/v1beta1, kind: Resources}\n',
        ),
      }),
      want: /^compositor render: pipeline step "pt" returned a fatal result: invalid Function input: resources: Required value: resources or environment patches are required\n$/,
    },
  };
  for (const [name, c] of Object.entries(failures)) {
    it(`exits 1 with one line: ${name}`, async () => {
      const { code, docs, stderr } = await render(c.options());
      expect(code, c.reason).to.equal(1);
      expect(stderr, c.reason).to.match(c.want);
      expect(stderr.trimEnd().split('\n'), c.reason).to.have.length(1);
      expect(docs, c.reason).to.deep.equal([]);
    });
  }
});

describe('cli/program render', () => {
  async function parse(argv: string[]): Promise<{ code: number; options?: RenderOptions; stderr: string }> {
    const result: { code: number; options?: RenderOptions; stderr: string } = { code: -1, stderr: '' };
    result.code = await runProgram(
      argv,
      {
        start: () => Promise.resolve(0),
        dev: () => Promise.resolve(0),
        render: (options) => {
          result.options = options;
          return Promise.resolve(0);
        },
      },
      { writeOut: () => undefined, writeErr: (t) => (result.stderr += t) },
    );
    return result;
  }

  it('passes the files and flags to the render handler', async () => {
    const { code, options } = await parse([
      'render',
      'xr.yaml',
      'c.yaml',
      'f.yaml',
      '--observed-resources=o.yaml',
      '-r',
      '--include-deleted',
    ]);
    expect(code).to.equal(0);
    expect(options).to.deep.equal({
      xr: 'xr.yaml',
      composition: 'c.yaml',
      functions: 'f.yaml',
      observedResources: 'o.yaml',
      includeFunctionResults: true,
      includeContext: false,
      includeDeleted: true,
      timeoutMs: 60_000,
    });
  });

  it('exits 2 with one line for a bad flag or a missing argument', async () => {
    for (const argv of [
      ['render', 'xr.yaml', 'c.yaml', 'f.yaml', '--timeout=soon'],
      ['render', 'xr.yaml'],
      ['render', 'xr.yaml', 'c.yaml', 'f.yaml', '--no-such-flag'],
    ]) {
      const { code, options, stderr } = await parse(argv);
      expect(code, argv.join(' ')).to.equal(2);
      expect(options, argv.join(' ')).to.equal(undefined);
      expect(stderr.trimEnd().split('\n'), argv.join(' ')).to.have.length(1);
    }
  });
});
