import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../../src/apis/index.js';
import { usagePolicyManifests } from '../../../src/usage/index.js';

// The Helm chart renders the admission policy compositor applies itself with --install-crds: the two must agree.
describe('usage/policy', () => {
  it('is what the chart renders (charts/compositor/templates/usage-policy.yaml)', () => {
    const template = readFileSync(
      join(packageRoot(), 'charts', 'compositor', 'templates', 'usage-policy.yaml'),
      'utf8',
    );
    // Only the chart's labels and its on/off switch are templated: drop those lines and the rest is plain YAML.
    const plain = template
      .split('\n')
      .filter((line) => !line.includes('{{') && !line.trim().startsWith('labels:'))
      .join('\n');
    const rendered = parseAllDocuments(plain).map((doc) => doc.toJS() as { kind: string; spec: unknown });
    const manifests = usagePolicyManifests();
    expect(rendered.map((r) => r.kind)).to.deep.equal(manifests.map((m) => m.kind));
    for (const [i, manifest] of manifests.entries()) {
      expect(rendered[i]?.spec, manifest.kind).to.deep.equal(manifest.spec);
    }
  });
});
