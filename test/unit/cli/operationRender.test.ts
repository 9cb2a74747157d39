import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runOperationRender, runProgram, type OperationRenderOptions } from '../../../src/cli/index.js';
import { withFunctionAnnotations } from '../../../src/cli/renderAnnotations.js';
import type { BuiltinFunction, JsonObject, RunFunctionRequest } from '../../../src/functions/index.js';

interface Rendered {
  code: number;
  docs: Record<string, unknown>[];
  stderr: string;
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'compositor-oprender-')), name);
  writeFileSync(path, text);
  return path;
}

/** The Function the steps name, at a package the built-in function-patch-and-transform serves. */
const FUNCTIONS = tempFile(
  'functions.yaml',
  `apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-patch-and-transform
spec:
  package: xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8
`,
);

/**
 * An in-process fake in place of function-patch-and-transform (a built-in name the examples' Function resolves to):
 * it labels a ConfigMap with whatever it was given under ops.crossplane.io/watched-resource, returns an output, a
 * warning and a context key, and records each request.
 */
function fakeFunction(requests: RunFunctionRequest[]): BuiltinFunction {
  return (request) => {
    requests.push(request);
    const watched = request.requiredResources?.['ops.crossplane.io/watched-resource']?.items?.[0]?.resource;
    const watchedName = (watched?.metadata as { name?: string } | undefined)?.name ?? 'none';
    return {
      desired: {
        resources: {
          b: {
            resource: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'cm-b', namespace: 'default' },
              data: { watched: watchedName },
            },
          },
          a: { resource: { apiVersion: 'example.org/v1', kind: 'Thing', metadata: { name: 'thing-a' } } },
        },
      },
      output: { checked: 2 },
      results: [{ severity: 'SEVERITY_WARNING', message: 'thing-a is old' }],
      context: { 'example.org/seen': watchedName },
    };
  };
}

async function render(
  operation: string,
  overrides: Partial<OperationRenderOptions> = {},
  requests: RunFunctionRequest[] = [],
): Promise<Rendered> {
  const out = { stdout: '', stderr: '' };
  const code = await runOperationRender(
    {
      operation,
      functions: FUNCTIONS,
      includeFunctionResults: false,
      includeContext: false,
      includeFullOperation: false,
      timeoutMs: 5_000,
      builtins: new Map([['function-patch-and-transform', fakeFunction(requests)]]),
      ...overrides,
    },
    { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
  );
  const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Record<string, unknown>);
  return { code, docs, stderr: out.stderr };
}

/** One step calling the fake, indented to sit under a `spec:` at the given depth. */
function pipeline(indent: string): string {
  return ['pipeline:', '- step: check', '  functionRef:', '    name: function-patch-and-transform']
    .map((line) => `\n${indent}${line}`)
    .join('');
}

const OPERATION = `apiVersion: ops.crossplane.io/v1alpha1
kind: Operation
metadata:
  name: check-things
  labels:
    team: a
spec:
  mode: Pipeline${pipeline('  ')}
`;

const APPLIED = [
  { apiVersion: 'example.org/v1', kind: 'Thing', name: 'thing-a' },
  { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-b', namespace: 'default' },
];

/** A CronOperation or WatchOperation whose template runs the one step; `own` is its spec besides the template. */
function parentFile(kind: string, name: string, own: string, templateMetadata: string): string {
  const template = ['  operationTemplate:', templateMetadata, '    spec:', `      mode: Pipeline${pipeline('      ')}`];
  const text = [
    `apiVersion: ops.crossplane.io/v1alpha1`,
    `kind: ${kind}`,
    'metadata:',
    `  name: ${name}`,
    'spec:',
    own,
  ];
  return tempFile(`${name}.yaml`, `${[...text, ...template].filter((l) => l !== '').join('\n')}\n`);
}

const T = '2024-01-01T00:00:00Z';
/** What one successful reconcile leaves, with render's fixed transition time. */
const CONDITIONS = [
  { type: 'Succeeded', status: 'True', reason: 'PipelineSuccess', lastTransitionTime: T },
  { type: 'ValidPipeline', status: 'True', reason: 'ValidPipeline', lastTransitionTime: T },
  { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: T },
];

/** The Operation render prints for these tests' fake, under the given metadata. */
function renderedOperation(metadata: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'Operation',
    metadata: { creationTimestamp: null, ...metadata },
    status: {
      conditions: CONDITIONS,
      appliedResourceRefs: APPLIED,
      pipeline: [{ step: 'check', output: { checked: 2 } }],
    },
  };
}

const CM_B = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm-b', namespace: 'default' },
  data: { watched: 'none' },
};

describe('cli/operationRender', () => {
  it('prints the Operation with its status and the resources it would apply, in resource-name order', async () => {
    const { code, docs, stderr } = await render(tempFile('op.yaml', OPERATION));
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(docs).to.deep.equal([
      renderedOperation({ name: 'check-things', labels: { team: 'a' } }),
      { apiVersion: 'example.org/v1', kind: 'Thing', metadata: { name: 'thing-a' } },
      CM_B,
    ]);
  });

  it('-r, -c and -o add the results as the events a reconcile records, the context and the spec', async () => {
    const flags = { includeFunctionResults: true, includeContext: true, includeFullOperation: true };
    const { code, docs } = await render(tempFile('op.yaml', OPERATION), flags);
    expect(code).to.equal(0);
    expect((docs[0]?.spec as { pipeline: { step: string }[] }).pipeline[0]?.step).to.equal('check');
    expect(docs.slice(3)).to.deep.equal([
      {
        apiVersion: 'render.crossplane.io/v1beta1',
        kind: 'Result',
        severity: 'Warning',
        reason: 'RunPipelineStep',
        message: 'Pipeline step "check": thing-a is old',
      },
      { apiVersion: 'render.crossplane.io/v1beta1', kind: 'Context', fields: { 'example.org/seen': 'none' } },
    ]);
  });

  it("renders a CronOperation's template as the Operation it would create, under the CronOperation's name", async () => {
    const cron = parentFile(
      'CronOperation',
      'nightly',
      '  schedule: "0 1 * * *"',
      '    metadata:\n      labels:\n        from: template',
    );
    const { code, docs, stderr } = await render(cron);
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(docs[0]).to.deep.equal(renderedOperation({ name: 'nightly', labels: { from: 'template' } }));
  });

  it('gives every step of a WatchOperation the --watched-resource under ops.crossplane.io/watched-resource', async () => {
    const watch = parentFile('WatchOperation', 'on-change', '  watch:\n    apiVersion: v1\n    kind: Secret', '');
    const watched = tempFile(
      'watched.yaml',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: team-a\n',
    );
    const requests: RunFunctionRequest[] = [];
    const { code, docs, stderr } = await render(
      watch,
      { watchedResource: watched, includeFullOperation: true },
      requests,
    );
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    expect(requests[0]?.requiredResources?.['ops.crossplane.io/watched-resource']?.items).to.have.length(1);
    expect(docs[2]).to.deep.equal({ ...CM_B, data: { watched: 'creds' } });
    const step = (docs[0]?.spec as { pipeline: Record<string, unknown>[] }).pipeline[0];
    expect(step?.requirements).to.deep.equal({
      requiredResources: [
        {
          requirementName: 'ops.crossplane.io/watched-resource',
          apiVersion: 'v1',
          kind: 'Secret',
          name: 'creds',
          namespace: 'team-a',
        },
      ],
    });
  });

  const bad: Record<string, { reason: string; files: () => [string, string?]; want: RegExp }> = {
    'not an operation': {
      reason: 'a Composition is not an Operation type',
      files: () => [tempFile('comp.yaml', 'apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\n')],
      want: /^compositor operation render: invalid operation ".*comp\.yaml": not an operation type: Composition\/apiextensions\.crossplane\.io\/v1\n$/,
    },
    'no pipeline': {
      reason: 'an Operation without steps has nothing to run',
      files: () => [
        tempFile('op.yaml', 'apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: x\n'),
      ],
      want: /^compositor operation render: invalid operation ".*op\.yaml": Operation "x" has no spec\.pipeline steps\n$/,
    },
    'missing file': {
      reason: 'a file that does not exist is named',
      files: () => ['/nonexistent/op.yaml'],
      want: /^compositor operation render: cannot read operation "\/nonexistent\/op\.yaml": no such file\n$/,
    },
    'two watched resources': {
      reason: 'the watched resource must be exactly one object',
      files: () => [
        tempFile('op.yaml', OPERATION),
        tempFile(
          'w.yaml',
          'apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n',
        ),
      ],
      want: /^compositor operation render: invalid watched resource ".*w\.yaml": --watched-resource must contain exactly one resource, got 2\n$/,
    },
  };
  for (const [name, { reason, files, want }] of Object.entries(bad)) {
    it(`fails with one line naming the file: ${name}`, async () => {
      const [operation, watchedResource] = files();
      const requests: RunFunctionRequest[] = [];
      const { code, docs, stderr } = await render(operation, watchedResource ? { watchedResource } : {}, requests);
      expect(stderr, reason).to.match(want);
      expect(code, reason).to.equal(1);
      expect(docs, reason).to.deep.equal([]);
      expect(requests, reason).to.deep.equal([]);
    });
  }

  it('a FATAL result fails the render with one line and prints nothing', async () => {
    const fatal: BuiltinFunction = () => ({ results: [{ severity: 'SEVERITY_FATAL', message: 'no things found' }] });
    const out = { stdout: '', stderr: '' };
    const code = await runOperationRender(
      {
        operation: tempFile('op.yaml', OPERATION),
        functions: FUNCTIONS,
        includeFunctionResults: true,
        includeContext: false,
        includeFullOperation: false,
        timeoutMs: 5_000,
        builtins: new Map([['function-patch-and-transform', fatal]]),
      },
      { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
    );
    expect(code).to.equal(1);
    expect(out.stdout).to.equal('');
    expect(out.stderr).to.match(/^compositor operation render: .*no things found\n$/);
  });

  it('a Function that is neither built in nor annotated with a development target is named as the problem', async () => {
    const functions = tempFile(
      'fns.yaml',
      'apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-patch-and-transform\nspec:\n  package: example.org/fn:v1\n',
    );
    const { code, stderr } = await render(tempFile('op.yaml', OPERATION), { functions });
    expect(code).to.equal(1);
    expect(stderr).to.match(
      /^compositor operation render: invalid functions ".*fns\.yaml": Function "function-patch-and-transform" is not built in/,
    );
  });

  it("is reachable as `compositor operation render` with crank's flags", async () => {
    let seen: OperationRenderOptions | undefined;
    const code = await runProgram(
      ['operation', 'render', 'op.yaml', 'fns.yaml', '-e', 'req.yaml', '-w', 'w.yaml', '-r', '-c', '-o'],
      {
        start: () => Promise.resolve(0),
        dev: () => Promise.resolve(0),
        operationRender: (options) => {
          seen = options;
          return Promise.resolve(0);
        },
      },
      { writeOut: () => undefined, writeErr: () => undefined },
    );
    expect(code).to.equal(0);
    expect(seen).to.deep.equal({
      operation: 'op.yaml',
      functions: 'fns.yaml',
      requiredResources: 'req.yaml',
      watchedResource: 'w.yaml',
      includeFunctionResults: true,
      includeContext: true,
      includeFullOperation: true,
      timeoutMs: 60_000,
    });
  });

  it('--context-files and --context-values seed the context the first step gets; a value wins over a file', async () => {
    const requests: RunFunctionRequest[] = [];
    const env = tempFile('env.json', '{"region": "eu", "tier": "silver"}');
    const tier = tempFile('tier.yaml', 'silver\n');
    const { code, stderr } = await render(
      tempFile('op.yaml', OPERATION),
      {
        contextFiles: [`example.org/env=${env}`, `example.org/tier=${tier}`],
        contextValues: ['example.org/tier="gold"', 'example.org/list=[1, 2]'],
      },
      requests,
    );
    expect(code, stderr).to.equal(0);
    expect(requests[0]?.context).to.deep.equal({
      'example.org/env': { region: 'eu', tier: 'silver' },
      'example.org/tier': 'gold',
      'example.org/list': [1, 2],
    });
  });

  const badContext: Record<string, { reason: string; options: Partial<OperationRenderOptions>; want: RegExp }> = {
    'no key': {
      reason: 'a flag without KEY= says what it wants',
      options: { contextValues: ['{"a": 1}'] },
      want: /^compositor operation render: invalid --context-values "\{"a": 1\}": want KEY=VALUE\n$/,
    },
    'missing file': {
      reason: 'a file that cannot be read is named by its key',
      options: { contextFiles: ['example.org/env=/nonexistent/env.json'] },
      want: /^compositor operation render: cannot build context data: cannot read context value for key "example\.org\/env": /,
    },
    'not YAML': {
      reason: 'a value that does not parse is named by its key',
      options: { contextValues: ['example.org/env={"a": '] },
      want: /^compositor operation render: cannot parse context data: cannot unmarshal context value for key "example\.org\/env": /,
    },
  };
  for (const [name, { reason, options, want }] of Object.entries(badContext)) {
    it(`fails with one line and calls nothing for a bad context flag: ${name}`, async () => {
      const requests: RunFunctionRequest[] = [];
      const { code, docs, stderr } = await render(tempFile('op.yaml', OPERATION), options, requests);
      expect(stderr, reason).to.match(want);
      expect(stderr.trim().split('\n'), reason).to.have.length(1);
      expect(code, reason).to.equal(1);
      expect(docs, reason).to.deep.equal([]);
      expect(requests, reason).to.deep.equal([]);
    });
  }

  it('takes --context-files, --context-values and -a repeated, in the order given, and --function-credentials', async () => {
    let seen: OperationRenderOptions | undefined;
    const argv = ['operation', 'render', 'op.yaml', 'fns.yaml', '--context-files', 'a=a.json'];
    argv.push('--context-values', 'b=1', '--context-values', 'c="x"', '--function-credentials', 'creds/');
    argv.push('-a', 'k=v', '--function-annotations', 'l=w', '--required-schemas', 'schemas/');
    const code = await runProgram(
      argv,
      {
        start: () => Promise.resolve(0),
        dev: () => Promise.resolve(0),
        operationRender: (options) => {
          seen = options;
          return Promise.resolve(0);
        },
      },
      { writeOut: () => undefined, writeErr: () => undefined },
    );
    expect(code).to.equal(0);
    expect(seen?.contextFiles).to.deep.equal(['a=a.json']);
    expect(seen?.contextValues).to.deep.equal(['b=1', 'c="x"']);
    expect(seen?.functionCredentials).to.equal('creds/');
    expect(seen?.functionAnnotations).to.deep.equal(['k=v', 'l=w']);
    expect(seen?.requiredSchemas).to.equal('schemas/');
  });

  it('--function-credentials gives a step the data of the Secret its credentials name, stringData included', async () => {
    const requests: RunFunctionRequest[] = [];
    const operation = tempFile(
      'op.yaml',
      OPERATION.replace(
        '    name: function-patch-and-transform',
        [
          '    name: function-patch-and-transform',
          '    credentials:',
          '    - name: db',
          '      source: Secret',
          '      secretRef: {namespace: ops, name: db-creds}',
        ].join('\n'),
      ),
    );
    const secrets = tempFile(
      'secrets.yaml',
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {namespace: ops, name: db-creds}',
        `data: {user: ${Buffer.from('admin').toString('base64')}}`,
        'stringData: {password: s3cret}',
        '---',
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {namespace: other, name: db-creds}',
        'data: {user: b3RoZXI=}',
      ].join('\n'),
    );
    const { code, stderr } = await render(operation, { functionCredentials: secrets }, requests);
    expect(code, stderr).to.equal(0);
    const data = requests[0]?.credentials?.db?.credentialData?.data ?? {};
    expect(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString()]))).to.deep.equal({
      user: 'admin',
      password: 's3cret',
    });

    const missing = await render(operation, {}, []);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/Secret ops\/db-creds not found/);
  });

  it('-a sets each annotation on every Function, in place of its own, and rejects one without =', async () => {
    const fns: JsonObject[] = [
      {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Function',
        metadata: { name: 'a', annotations: { x: 'own', y: '1' } },
      },
      { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function', metadata: { name: 'b' } },
    ];
    const out = withFunctionAnnotations(fns, ['x=flag', 'render.crossplane.io/runtime-development-target=h:1=2']);
    expect(out.map((fn) => (fn.metadata as { annotations?: unknown }).annotations)).to.deep.equal([
      { x: 'flag', y: '1', 'render.crossplane.io/runtime-development-target': 'h:1=2' },
      { x: 'flag', 'render.crossplane.io/runtime-development-target': 'h:1=2' },
    ]);
    expect((fns[0]?.metadata as { annotations?: unknown }).annotations).to.deep.equal({ x: 'own', y: '1' });
    const { code, stderr } = await render(tempFile('op.yaml', OPERATION), { functionAnnotations: ['novalue'] });
    expect(code).to.equal(1);
    expect(stderr).to.equal(
      'compositor operation render: cannot apply function annotation overrides: invalid function annotation format "novalue", expected key=value\n',
    );
  });

  it('--required-schemas answers a schema a function asks for from the OpenAPI documents in a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compositor-schemas-'));
    const widget = {
      type: 'object',
      properties: { spec: { $ref: '#/components/schemas/WidgetSpec' } },
      'x-kubernetes-group-version-kind': [{ group: 'example.org', version: 'v1', kind: 'Widget' }],
    };
    const document = {
      components: { schemas: { Widget: widget, WidgetSpec: { type: 'object', description: 'spec' } } },
    };
    writeFileSync(join(dir, 'example.org-v1.json'), JSON.stringify(document));
    writeFileSync(join(dir, 'notes.txt'), 'not a schema');
    // Asks for the schema on every call, as functions do, until the requirements settle.
    const asking: BuiltinFunction = (request) => ({
      requirements: { schemas: { widget: { apiVersion: 'example.org/v1', kind: 'Widget' } } },
      output: { schema: request.requiredSchemas?.widget?.openapiV3 ?? null },
    });
    const { code, docs, stderr } = await render(tempFile('op.yaml', OPERATION), {
      requiredSchemas: dir,
      builtins: new Map([['function-patch-and-transform', asking]]),
    });
    expect(code, stderr).to.equal(0);
    const status = docs[0]?.status as { pipeline?: { output?: { schema?: unknown } }[] };
    expect(status.pipeline?.[0]?.output?.schema).to.deep.equal({
      type: 'object',
      properties: { spec: { type: 'object', description: 'spec' } },
      'x-kubernetes-group-version-kind': [{ group: 'example.org', version: 'v1', kind: 'Widget' }],
    });

    writeFileSync(join(dir, 'broken.json'), '{');
    const broken = await render(tempFile('op.yaml', OPERATION), { requiredSchemas: dir });
    expect(broken.code).to.equal(1);
    expect(broken.stderr).to.match(
      /^compositor operation render: cannot load required schemas from ".*": cannot parse OpenAPI JSON from ".*broken\.json": /,
    );
  });
});
