// The scenarios of the conformance corpus (scenarios/<id>/expected.yaml plus the upstream manifests next to it),
// read at run time. Paths in steps are relative to the scenario folder; `setup/*.yaml` means every file there.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../src/kube/index.js';
import { corpusDir } from '../corpus.js';

export type Expectation = Record<string, unknown>;

export interface Step {
  name: string;
  apply?: string[];
  delete?: string[];
  propagation?: string;
  action?: string;
  sleep?: string;
  expect?: Expectation[];
}

export interface RenderSpec {
  inputs?: string[];
  command?: string;
  expectOutput?: unknown;
}

export interface Scenario {
  id: string;
  dir: string;
  title?: string;
  steps?: Step[];
  render?: RenderSpec;
}

/** One object of a manifest file; `file` is the path relative to the scenario folder. */
export interface Manifest {
  file: string;
  object: KubeObject;
}

/** The corpus folders that hold scenarios: upstream ones, and real-world renders checked against crank. */
export const SCENARIO_FOLDERS = ['scenarios', 'realworld'] as const;

/** Every scenario folder under `dir` that has an expected.yaml, sorted by id; a missing `dir` holds none. */
export function loadScenarios(dir: string = join(corpusDir(), 'scenarios')): Scenario[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((id) => statSync(join(dir, id)).isDirectory() && existsSync(join(dir, id, 'expected.yaml')))
    .sort()
    .map((id) => {
      const spec = parse(readFileSync(join(dir, id, 'expected.yaml'), 'utf8')) as Omit<Scenario, 'id' | 'dir'>;
      return { ...spec, id, dir: join(dir, id) };
    });
}

/** The scenarios of every scenario folder of the corpus, in folder order. */
export function loadAllScenarios(root: string = corpusDir()): Scenario[] {
  return SCENARIO_FOLDERS.flatMap((folder) => loadScenarios(join(root, folder)));
}

/** The files a step path names: itself, or every .yaml file of its folder for `<folder>/*.yaml`. */
export function expandPath(scenario: Scenario, path: string): string[] {
  if (basename(path) !== '*.yaml') return [path];
  const folder = dirname(path);
  return readdirSync(join(scenario.dir, folder))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(folder, f));
}

/** The objects of the files the paths name, in file order; empty YAML documents are skipped. */
export function readManifests(scenario: Scenario, paths: readonly string[]): Manifest[] {
  return paths.flatMap((path) =>
    expandPath(scenario, path).flatMap((file) =>
      parseAllDocuments(readFileSync(join(scenario.dir, file), 'utf8'))
        .map((doc) => doc.toJS() as KubeObject | null)
        .filter((object): object is KubeObject => object !== null && typeof object === 'object')
        .map((object) => ({ file, object })),
    ),
  );
}

/** The object an expectation's `target` names: the first object of that file. */
export function targetObject(scenario: Scenario, file: string): KubeObject {
  const [first] = readManifests(scenario, [file]);
  if (!first) throw new Error(`target ${file} holds no object`);
  return first.object;
}
