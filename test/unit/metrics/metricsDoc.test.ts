import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/apis/index.js';
import { createMetrics } from '../../../src/metrics/index.js';

// docs/metrics.md is the reference of what compositor exports: its table and the registry must name the same
// metrics. prom-client's default process metrics are one `process_*`, `nodejs_*` row there and are left out here.
const doc = readFileSync(join(packageRoot(), 'docs', 'metrics.md'), 'utf8');

/** Metric names in the first column of the table: every backticked snake_case name. */
function documented(): string[] {
  return doc
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1] ?? ''));
}

describe('metrics/docs', () => {
  const registered = createMetrics({ processMetrics: false })
    .registry.getMetricsAsArray()
    .map((metric) => metric.name);

  it('documents every registered metric in docs/metrics.md', () => {
    const missing = registered.filter((name) => !documented().includes(name));
    expect(missing, 'registered but not in the table of docs/metrics.md').to.deep.equal([]);
  });

  it('documents no metric that is not registered', () => {
    const unknown = documented().filter((name) => !registered.includes(name));
    expect(unknown, 'in the table of docs/metrics.md but not registered').to.deep.equal([]);
  });
});
