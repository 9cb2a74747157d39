import { expect } from 'chai';
import { printDot, printTable } from '../../../src/cli/tracePrinters.js';
import type { TraceNode, TracedObject } from '../../../src/cli/traceTree.js';

// `compositor trace` of an XR composed with composed resource ordering: each composed resource's dependencies, from
// the graph kept in the XR's resourceRefs, in the wide table's RESOURCE column and as dashed edges in dot.

const cm = (name: string): TraceNode => ({
  object: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `x-${name}`,
      namespace: 'default',
      annotations: { 'crossplane.io/composition-resource-name': name },
    },
  },
  children: [],
});

function xr(withGraph: boolean): TraceNode {
  const ref = (name: string, dependsOn?: string[]): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: `x-${name}`,
    ...(withGraph ? { resourceName: name, ...(dependsOn ? { dependsOn } : {}) } : {}),
  });
  const object: TracedObject = {
    apiVersion: 'example.org/v1',
    kind: 'XApp',
    metadata: { name: 'x', namespace: 'default' },
    spec: { crossplane: { resourceRefs: [ref('app', ['release']), ref('cluster'), ref('release', ['cluster'])] } },
  };
  return { object, children: [cm('app'), cm('cluster'), cm('release')] };
}

describe('cli/tracePrinters with composed resource ordering', () => {
  it('says what each resource depends on in the wide table', () => {
    const table = printTable(xr(true), true);
    expect(table).to.include('ConfigMap/x-app (default)       app (depends on release)');
    expect(table).to.include('ConfigMap/x-release (default)   release (depends on cluster)');
  });

  it('draws each dependency as a dashed edge', () => {
    const dot = printDot(xr(true));
    expect(dot).to.include('\tn2--n4[style="dashed",label="depends on"];\n');
    expect(dot).to.include('\tn4--n3[style="dashed",label="depends on"];\n');
  });

  it('prints what upstream prints for an XR without the graph', () => {
    expect(printDot(xr(false))).to.not.include('dashed');
    expect(printTable(xr(false), true)).to.not.include('depends on');
  });
});
