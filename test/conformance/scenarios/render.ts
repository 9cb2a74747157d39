// Render-style scenarios, run through `compositor render` as a separate process: the scenario's input files are
// sorted by what they hold (the Composition, Functions, an XRD, the XR its compositeTypeRef names, and observed
// composed resources), and the printed documents are compared with the expected output as a subset: keys the
// expectation leaves out, and values written `<...>` (upstream's "omitted"), are not compared.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../../src/apis/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { builtinFunction } from './builtins.js';
import { readManifests, type Scenario } from './scenario.js';

type Json = Record<string, unknown>;
const RENDER_API_VERSION = 'render.crossplane.io/v1beta1';

interface Inputs {
  xr: KubeObject;
  composition: KubeObject;
  functions: KubeObject[];
  xrd?: KubeObject;
  observed: KubeObject[];
}

/** The input files a render scenario names: its `inputs`, or the YAML files of its upstream command line. */
function inputFiles(scenario: Scenario): string[] {
  const render = scenario.render ?? {};
  return render.inputs ?? (render.command ?? '').split(/\s+/).filter((token) => token.endsWith('.yaml'));
}

function classify(objects: readonly KubeObject[]): Inputs {
  const composition = objects.find((o) => o.kind === 'Composition');
  if (!composition) throw new Error('the render inputs hold no Composition');
  const ref = (composition.spec as { compositeTypeRef?: { apiVersion?: string; kind?: string } } | undefined)
    ?.compositeTypeRef;
  const xr = objects.find((o) => o.apiVersion === ref?.apiVersion && o.kind === ref.kind);
  if (!xr) throw new Error(`the render inputs hold no ${ref?.kind ?? 'XR'} for the Composition`);
  const known = new Set(['Composition', 'Function', 'CompositeResourceDefinition']);
  return {
    xr,
    composition,
    functions: objects.filter((o) => o.kind === 'Function'),
    xrd: objects.find((o) => o.kind === 'CompositeResourceDefinition'),
    observed: objects.filter((o) => o !== xr && !known.has(o.kind)),
  };
}

function writeDocs(dir: string, name: string, objects: readonly unknown[]): string {
  const path = join(dir, name);
  // JSON, which is YAML too: every string stays a string when render reads the file as YAML 1.1, as crank does.
  writeFileSync(path, objects.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
  return path;
}

/** Runs `compositor render` on the inputs and returns the printed documents. */
function render(inputs: Inputs): Json[] {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-render-scenario-'));
  try {
    const args = [
      writeDocs(dir, 'xr.yaml', [inputs.xr]),
      writeDocs(dir, 'composition.yaml', [inputs.composition]),
      // Built-ins pinned to other releases are forced to the built-in (builtins.ts); others fail as render would.
      writeDocs(
        dir,
        'functions.yaml',
        inputs.functions.map((fn) => builtinFunction(fn) ?? fn),
      ),
      '--include-events',
      '--include-deleted',
    ];
    if (inputs.observed.length > 0)
      args.push(`--observed-resources=${writeDocs(dir, 'observed.yaml', inputs.observed)}`);
    if (inputs.xrd) args.push(`--xrd=${writeDocs(dir, 'xrd.yaml', [inputs.xrd])}`);
    const main = join(packageRoot(), 'src', 'cli', 'main.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', main, 'render', ...args], {
      cwd: packageRoot(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`compositor render exited ${String(run.status)}: ${run.stderr.trim()}`);
    return parseAllDocuments(run.stdout).map((doc) => doc.toJS() as Json);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function show(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

function arrayDiff(actual: unknown, expected: readonly unknown[], path: string): string[] {
  if (!Array.isArray(actual) || actual.length !== expected.length) {
    return [`${path}: got ${show(actual)}, want ${show(expected)}`];
  }
  return expected.flatMap((e, i) => subsetDiff(actual[i], e, `${path}[${i}]`));
}

function objectDiff(actual: unknown, expected: object, path: string): string[] {
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
    return [`${path}: got ${show(actual)}, want an object`];
  return Object.entries(expected).flatMap(([k, e]) => subsetDiff((actual as Json)[k], e, `${path}.${k}`));
}

/** Paths where `actual` does not contain `expected`, as `path: got X, want Y`. */
export function subsetDiff(actual: unknown, expected: unknown, path = '(root)'): string[] {
  if (typeof expected === 'string' && /^<.*>$/.test(expected)) return [];
  if (Array.isArray(expected)) return arrayDiff(actual, expected, path);
  if (expected !== null && typeof expected === 'object') return objectDiff(actual, expected, path);
  return actual === expected ? [] : [`${path}: got ${show(actual)}, want ${show(expected)}`];
}

/** The engine-style expectation: the XR, the events in order, and what would be deleted. */
function engineOutputDiff(scenario: Scenario, docs: readonly Json[], expected: Json): string[] {
  const rendered = docs.filter((d) => d.apiVersion !== RENDER_API_VERSION);
  const events = docs.filter((d) => d.apiVersion === RENDER_API_VERSION && d.kind === 'Event');
  const deleted = docs.filter((d) => d.apiVersion === RENDER_API_VERSION && d.kind === 'DeletedResource');
  const wantDeleted = readManifests(scenario, (expected.deletedResources as string[] | undefined) ?? []).map(
    ({ object }) => ({ resource: { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name } }),
  );
  return [
    ...subsetDiff(rendered[0], expected.compositeResource, 'compositeResource'),
    ...(expected.events === undefined ? [] : subsetDiff(events, expected.events, 'events')),
    ...subsetDiff(deleted, wantDeleted, 'deletedResources'),
  ];
}

export function runRenderScenario(scenario: Scenario): Promise<void> {
  const inputs = classify(readManifests(scenario, inputFiles(scenario)).map((m) => m.object));
  const docs = render(inputs);
  const expected = scenario.render?.expectOutput;
  let diffs: string[];
  if (Array.isArray(expected)) {
    diffs = subsetDiff(
      docs.filter((d) => d.apiVersion !== RENDER_API_VERSION),
      expected,
      'output',
    );
  } else if (expected !== null && typeof expected === 'object') {
    diffs = engineOutputDiff(scenario, docs, expected as Json);
  } else {
    throw new Error(`render scenario ${scenario.id} has no expectOutput this runner can compare`);
  }
  if (diffs.length > 0) return Promise.reject(new Error(diffs.slice(0, 5).join('; ')));
  return Promise.resolve();
}
