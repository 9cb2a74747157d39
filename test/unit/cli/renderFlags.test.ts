import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../../src/apis/index.js';
import { runProgram, runRender, type RenderOptions } from '../../../src/cli/index.js';
import { builtinFunctions, type BuiltinFunction, type RunFunctionRequest } from '../../../src/functions/index.js';

// crank's input flags on `compositor render` (crossplane/cli cmd/crossplane/render/xr/cmd.go at v2.3.4): each changes
// what the pipeline's functions are given, and so what render prints. function-patch-and-transform is replaced by an
// in-process fake that prints what it was given into the ConfigMap it composes; function-auto-ready is the built-in.

const examples = join(packageRoot(), 'examples');
const XR = join(examples, '30-app.yaml');
const COMPOSITION = join(examples, '20-composition.yaml');
const FUNCTIONS = join(examples, '00-function.yaml');

type Doc = Record<string, unknown>;

interface Rendered {
  code: number;
  docs: Doc[];
  stderr: string;
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'compositor-renderflags-')), name);
  writeFileSync(path, text);
  return path;
}

/**
 * Composes one ConfigMap `settings` whose data shows what the request held: the context, the `db` credentials,
 * the names of the `things` it requires (apiVersion example.org/v1, kind Thing) and the description of the Widget
 * schema it requires. It passes the context on, as functions built with the SDK do.
 */
function fakeFunction(requests: RunFunctionRequest[]): BuiltinFunction {
  return (request) => {
    requests.push(request);
    return {
      requirements: {
        resources: { things: { apiVersion: 'example.org/v1', kind: 'Thing', matchLabels: { labels: { app: 'a' } } } },
        schemas: { widget: { apiVersion: 'example.org/v1', kind: 'Widget' } },
      },
      desired: {
        ...request.desired,
        resources: { settings: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: shown(request) } } },
      },
      ...(request.context !== undefined ? { context: request.context } : {}),
    };
  };
}

/** The `db` credentials a request holds, as key=value text. */
function credentialsOf(request: RunFunctionRequest): string {
  const data = request.credentials?.db?.credentialData?.data ?? {};
  return Object.entries(data)
    .map(([k, v]) => `${k}=${Buffer.from(v).toString()}`)
    .join(',');
}

/** What the fake prints of a request into its ConfigMap. */
function shown(request: RunFunctionRequest): Record<string, string> {
  const things = request.requiredResources?.things?.items ?? [];
  const schema = request.requiredSchemas?.widget?.openapiV3 as { description?: string } | undefined;
  return {
    context: JSON.stringify(request.context ?? null),
    credentials: credentialsOf(request),
    things: things.map((t) => (t.resource?.metadata as { name?: string }).name).join(','),
    schema: schema?.description ?? '',
  };
}

async function render(overrides: Partial<RenderOptions> = {}, requests: RunFunctionRequest[] = []): Promise<Rendered> {
  const out = { stdout: '', stderr: '' };
  const code = await runRender(
    {
      xr: XR,
      composition: COMPOSITION,
      functions: FUNCTIONS,
      includeFunctionResults: false,
      includeContext: false,
      timeoutMs: 5_000,
      builtins: new Map([...builtinFunctions(), ['function-patch-and-transform', fakeFunction(requests)]]),
      ...overrides,
    },
    { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) },
  );
  const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Doc);
  return { code, docs, stderr: out.stderr };
}

/** The data of the ConfigMap the fake composed, as render printed it. */
function settings(docs: Doc[]): Record<string, string> {
  const cm = docs.find((d) => d.kind === 'ConfigMap');
  expect(cm, 'a composed ConfigMap').to.not.equal(undefined);
  return (cm?.data ?? {}) as Record<string, string>;
}

/** The composition's first step, with the lines given added under it. */
function compositionWithStep(lines: string[]): string {
  const text = readFileSync(COMPOSITION, 'utf8');
  const anchor = '        name: function-patch-and-transform\n';
  expect(text).to.contain(anchor);
  return tempFile('composition.yaml', text.replace(anchor, `${anchor}${lines.map((l) => `      ${l}\n`).join('')}`));
}

describe('cli/render crank input flags', () => {
  it('--context-files and --context-values seed the first step; a value wins over a file; -c prints the result', async () => {
    const env = tempFile('env.yaml', 'region: eu\nreplicas: 3\n');
    const tier = tempFile('tier.json', '"silver"');
    const requests: RunFunctionRequest[] = [];
    const { code, docs, stderr } = await render(
      {
        includeContext: true,
        contextFiles: [`example.org/env=${env}`, `example.org/tier=${tier}`],
        // Read as crank reads them (YAML 1.1 through sigs.k8s.io/yaml): an unquoted yes is true.
        contextValues: ['example.org/tier="gold"', 'example.org/list=[1, 2]', 'example.org/on=yes'],
      },
      requests,
    );
    expect(code, stderr).to.equal(0);
    const seeded = {
      'example.org/env': { region: 'eu', replicas: 3 },
      'example.org/tier': 'gold',
      'example.org/list': [1, 2],
      'example.org/on': true,
    };
    expect(requests[0]?.context).to.deep.equal(seeded);
    expect(JSON.parse(settings(docs).context ?? '')).to.deep.equal(seeded);
    // The fake passes the context on and auto-ready after it too, so the pipeline ends with it.
    expect(docs.at(-1)).to.deep.equal({ apiVersion: 'render.crossplane.io/v1beta1', kind: 'Context', fields: seeded });
  });

  it('without the context flags the first step gets an empty context, as before', async () => {
    const requests: RunFunctionRequest[] = [];
    const { code, docs, stderr } = await render({}, requests);
    expect(code, stderr).to.equal(0);
    expect(settings(docs).context).to.equal('{}');
  });

  it('--function-credentials gives a step the data of the Secret its credentials name; a missing one fails', async () => {
    const composition = compositionWithStep([
      'credentials:',
      '- name: db',
      '  source: Secret',
      '  secretRef: {namespace: crossplane-system, name: db-creds}',
    ]);
    const secrets = tempFile(
      'secrets.yaml',
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {namespace: crossplane-system, name: db-creds}',
        `data: {user: ${Buffer.from('admin').toString('base64')}}`,
        'stringData: {password: s3cret}',
      ].join('\n'),
    );
    const { code, docs, stderr } = await render({ composition, functionCredentials: secrets });
    expect(code, stderr).to.equal(0);
    expect(settings(docs).credentials).to.equal('user=admin,password=s3cret');

    const missing = await render({ composition });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal(
      'compositor render: cannot get credentials "db" of pipeline step "patch-and-transform": Secret crossplane-system/db-creds not found\n',
    );
  });

  it("-e and --extra-resources both serve required resources, -e's first", async () => {
    const thing = (name: string, app: string): string =>
      `apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: ${name}, labels: {app: ${app}}}\n`;
    const required = tempFile('required.yaml', `${thing('one', 'a')}---\n${thing('other', 'b')}`);
    const extra = tempFile('extra.yaml', thing('two', 'a'));
    const both = await render({ requiredResources: required, extraResources: extra });
    expect(both.code, both.stderr).to.equal(0);
    expect(settings(both.docs).things).to.equal('one,two');
    const onlyExtra = await render({ extraResources: extra });
    expect(settings(onlyExtra.docs).things).to.equal('two');
  });

  it('-s answers a schema a function asks for from the OpenAPI documents under a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compositor-schemas-'));
    const widget = {
      type: 'object',
      description: 'A widget.',
      'x-kubernetes-group-version-kind': [{ group: 'example.org', version: 'v1', kind: 'Widget' }],
    };
    // crank walks the directory: a document in a subdirectory counts, a file of another extension does not.
    mkdirSync(join(dir, 'apis'));
    writeFileSync(
      join(dir, 'apis', 'example.org-v1.json'),
      JSON.stringify({ components: { schemas: { Widget: widget } } }),
    );
    writeFileSync(join(dir, 'notes.txt'), 'not a schema');
    const { code, docs, stderr } = await render({ requiredSchemas: dir });
    expect(code, stderr).to.equal(0);
    expect(settings(docs).schema).to.equal('A widget.');
    expect(settings((await render()).docs).schema).to.equal('');
  });

  it('-a overrides the annotations of every Function the file gives', async () => {
    // Forced off, function-patch-and-transform is not built in and render cannot run it; -a forces it back on.
    const functions = tempFile(
      'functions.yaml',
      readFileSync(FUNCTIONS, 'utf8').replace(
        'name: function-patch-and-transform\n',
        'name: function-patch-and-transform\n  annotations: {compositor.crossplane.io/builtin: "false"}\n',
      ),
    );
    const off = await render({ functions });
    expect(off.code).to.equal(1);
    expect(off.stderr).to.match(/Function "function-patch-and-transform" is not built in/);
    const on = await render({ functions, functionAnnotations: ['compositor.crossplane.io/builtin=true'] });
    expect(on.code, on.stderr).to.equal(0);
    expect(settings(on.docs).context).to.equal('{}');
  });

  const failures: Record<string, { reason: string; options: () => Partial<RenderOptions>; want: RegExp }> = {
    contextValueWithoutKey: {
      reason: 'a context flag is KEY=VALUE',
      options: () => ({ contextValues: ['{"a": 1}'] }),
      want: /^compositor render: invalid --context-values "\{"a": 1\}": want KEY=VALUE\n$/,
    },
    contextFileMissing: {
      reason: 'crank BuildContextData, wrapped as render xr wraps it',
      options: () => ({ contextFiles: ['example.org/env=/nonexistent/env.json'] }),
      want: /^compositor render: cannot build context data: cannot read context value for key "example\.org\/env": /,
    },
    contextValueNotYaml: {
      reason: 'crank ParseContextData, wrapped as render xr wraps it',
      options: () => ({ contextValues: ['example.org/env={"a": '] }),
      want: /^compositor render: cannot parse context data: cannot unmarshal context value for key "example\.org\/env": /,
    },
    annotationWithoutValue: {
      reason: 'crank OverrideFunctionAnnotations, wrapped as its render xr command wraps it',
      options: () => ({ functionAnnotations: ['novalue'] }),
      want: /^compositor render: cannot apply function annotation overrides: invalid function annotation format "novalue", expected key=value\n$/,
    },
    schemasNotADirectory: {
      reason: 'crank render xr: cannot load required schemas from',
      options: () => ({ requiredSchemas: '/nonexistent/schemas' }),
      want: /^compositor render: cannot load required schemas from "\/nonexistent\/schemas": cannot walk directory: /,
    },
    schemasWithoutJson: {
      reason: 'crank LoadRequiredSchemas: a directory without JSON files is an error',
      options: () => ({ requiredSchemas: mkdtempSync(join(tmpdir(), 'compositor-schemas-')) }),
      want: /^compositor render: cannot load required schemas from "(.*)": no JSON files found in "\1"\n$/,
    },
    extraResourcesMissing: {
      reason: 'the extra resources file is named as what it is',
      options: () => ({ extraResources: '/nonexistent/extra.yaml' }),
      want: /^compositor render: cannot read extra resources "\/nonexistent\/extra\.yaml": no such file\n$/,
    },
    credentialsMissing: {
      reason: 'the credentials file is named as what it is',
      options: () => ({ functionCredentials: '/nonexistent/creds.yaml' }),
      want: /^compositor render: cannot read function credentials "\/nonexistent\/creds\.yaml": no such file\n$/,
    },
  };
  for (const [name, c] of Object.entries(failures)) {
    it(`exits 1 with one line and calls no function: ${name}`, async () => {
      const requests: RunFunctionRequest[] = [];
      const { code, docs, stderr } = await render(c.options(), requests);
      expect(code, c.reason).to.equal(1);
      expect(stderr, c.reason).to.match(c.want);
      expect(stderr.trimEnd().split('\n'), c.reason).to.have.length(1);
      expect(docs, c.reason).to.deep.equal([]);
      expect(requests, c.reason).to.deep.equal([]);
    });
  }
});

describe('cli/program render crank input flags', () => {
  it("takes crank's names and short forms, repeated flags in the order given", async () => {
    let seen: RenderOptions | undefined;
    const argv = ['render', 'xr.yaml', 'c.yaml', 'f.yaml', '--context-files', 'a=a.json', '--context-values', 'b=1'];
    argv.push('--context-values', 'c="x"', '--function-credentials', 'creds/', '-a', 'k=v', '-a', 'l=w');
    argv.push('-s', 'schemas/', '-e', 'required.yaml', '--extra-resources', 'extra.yaml');
    const code = await runProgram(
      argv,
      {
        start: () => Promise.resolve(0),
        dev: () => Promise.resolve(0),
        render: (options) => {
          seen = options;
          return Promise.resolve(0);
        },
      },
      { writeOut: () => undefined, writeErr: () => undefined },
    );
    expect(code).to.equal(0);
    expect(seen).to.deep.equal({
      xr: 'xr.yaml',
      composition: 'c.yaml',
      functions: 'f.yaml',
      includeFunctionResults: false,
      includeContext: false,
      timeoutMs: 60_000,
      contextFiles: ['a=a.json'],
      contextValues: ['b=1', 'c="x"'],
      functionCredentials: 'creds/',
      functionAnnotations: ['k=v', 'l=w'],
      requiredSchemas: 'schemas/',
      requiredResources: 'required.yaml',
      extraResources: 'extra.yaml',
    });
  });
});
