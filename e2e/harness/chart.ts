// The Helm chart as the e2e suite uses it: rendered with helm (built from its Go module like the control plane)
// from the chart's defaults, e2e/values.yaml and a scenario's overrides, exactly as `helm install` would render it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { packageRoot } from '../../src/apis/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { resolveBinaries } from '../controlplane/index.js';

export const CHART_DIR = join(packageRoot(), 'charts', 'compositor');
export const E2E_VALUES = join(packageRoot(), 'e2e', 'values.yaml');
export const RELEASE = 'compositor';
export const RELEASE_NAMESPACE = 'crossplane-system';
/**
 * The Kubernetes version `helm template` renders for: the local control plane's, as `helm install` would see it
 * there. The chart renders without it too (e2e/chart.test.ts), for helm's default version.
 */
export const KUBE_VERSION = '1.37.2';

/** Chart values a scenario sets on top of e2e/values.yaml, e.g. { realtimeCompositions: false }. */
export type ChartValues = Record<string, unknown>;

let helmBinary: Promise<string> | undefined;

export async function helm(args: readonly string[]): Promise<string> {
  helmBinary ??= resolveBinaries(['helm']).then((binaries) => binaries.helm);
  const { stdout } = await promisify(execFile)(await helmBinary, [...args], { maxBuffer: 32 * 1024 * 1024 });
  return stdout;
}

/** Writes the overrides to a values file helm reads after e2e/values.yaml; returns helm's --values arguments. */
export function valuesArgs(overrides: ChartValues, dir: string): string[] {
  const file = join(dir, 'overrides.yaml');
  writeFileSync(file, stringify(overrides));
  return ['--values', E2E_VALUES, '--values', file];
}

/** `helm template` of the chart: every object the release would create, CRDs excluded (see chartCrds). */
export async function renderChart(overrides: ChartValues = {}): Promise<KubeObject[]> {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-chart-'));
  try {
    const out = await helm([
      'template',
      RELEASE,
      CHART_DIR,
      '--namespace',
      RELEASE_NAMESPACE,
      '--kube-version',
      KUBE_VERSION,
      ...valuesArgs(overrides, dir),
    ]);
    return parseAllDocuments(out)
      .map((doc) => doc.toJS() as KubeObject | null)
      .filter((object): object is KubeObject => object !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The chart's CRDs (helm installs crds/ before anything else and never templates them). */
export function chartCrds(): KubeObject[] {
  const dir = join(CHART_DIR, 'crds');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => doc.toJS() as KubeObject));
}

export interface Container {
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
}

/** The compositor container of the rendered Deployment. */
export function compositorContainer(objects: readonly KubeObject[]): Container {
  const deployment = objects.find((o) => o.kind === 'Deployment') as
    (KubeObject & { spec: { template: { spec: { containers: Container[] } } } }) | undefined;
  const container = deployment?.spec.template.spec.containers[0];
  if (!container) throw new Error('the chart rendered no Deployment with a container');
  return container;
}

/** The ServiceAccount compositor runs as, from the rendered Deployment. */
export function serviceAccountName(objects: readonly KubeObject[]): string {
  const deployment = objects.find((o) => o.kind === 'Deployment') as
    (KubeObject & { spec: { template: { spec: { serviceAccountName?: string } } } }) | undefined;
  return deployment?.spec.template.spec.serviceAccountName ?? 'default';
}
