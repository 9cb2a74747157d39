import { expect } from 'chai';
import { buildTree, childRefs, type ObjectRef, type TraceNode, type TracedObject } from '../../../src/cli/traceTree.js';

/** An in-memory cluster: GETs answer from the objects given, anything else is "not found". */
function fakeCluster(objects: TracedObject[]): { get: (ref: ObjectRef) => Promise<TracedObject>; reads: string[] } {
  const key = (apiVersion: string, kind: string, name: string, namespace?: string): string =>
    `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
  const byKey = new Map(objects.map((o) => [key(o.apiVersion, o.kind, o.metadata.name, o.metadata.namespace), o]));
  const reads: string[] = [];
  return {
    reads,
    get: (ref) => {
      const k = key(ref.apiVersion, ref.kind, ref.name, ref.namespace);
      reads.push(k);
      const found = byKey.get(k);
      return found ? Promise.resolve(found) : Promise.reject(new Error(`${ref.kind} "${ref.name}" not found`));
    },
  };
}

const ref = (apiVersion: string, kind: string, name: string, namespace?: string): ObjectRef =>
  namespace === undefined ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace };

/** Kind/name (namespace) of every node, indented by depth: the tree's shape without its objects. */
function shape(node: TraceNode, depth = 0): string[] {
  const ns = node.object.metadata.namespace;
  const own = `${'  '.repeat(depth)}${node.object.kind}/${node.object.metadata.name}${ns ? ` (${ns})` : ''}${node.error ? ` ! ${node.error.message}` : ''}`;
  return [own, ...node.children.flatMap((c) => shape(c, depth + 1))];
}

const v2Xr = (name: string, refs: ObjectRef[]): TracedObject => ({
  apiVersion: 'example.org/v1',
  kind: 'XApp',
  metadata: { name, namespace: 'team-a' },
  spec: { crossplane: { resourceRefs: refs } },
});

describe('cli/traceTree', () => {
  describe('childRefs', () => {
    const cases: Record<string, { reason: string; object: TracedObject; secrets?: boolean; want: ObjectRef[] }> = {
      v2: {
        reason: "a v2 XR's refs, in the XR's namespace unless a ref names one",
        object: v2Xr('shop', [ref('v1', 'ConfigMap', 'a'), ref('v1', 'ConfigMap', 'b', 'other')]),
        want: [ref('v1', 'ConfigMap', 'a', 'team-a'), ref('v1', 'ConfigMap', 'b', 'other')],
      },
      claim: {
        reason: "a claim's XR, cluster-scoped, and its connection Secret when asked for",
        object: {
          apiVersion: 'example.org/v1',
          kind: 'App',
          metadata: { name: 'shop', namespace: 'team-a' },
          spec: { resourceRef: ref('example.org/v1', 'XApp', 'shop-x1'), writeConnectionSecretToRef: { name: 's' } },
        },
        secrets: true,
        want: [ref('example.org/v1', 'XApp', 'shop-x1'), ref('v1', 'Secret', 's', 'team-a')],
      },
      legacy: {
        reason: "a legacy XR's refs as they are, and its connection Secret in the namespace it names",
        object: {
          apiVersion: 'example.org/v1',
          kind: 'XApp',
          metadata: { name: 'shop-x1' },
          spec: {
            resourceRefs: [ref('v1', 'ConfigMap', 'a', 'default'), ref('example.org/v1', 'Bucket', 'b')],
            writeConnectionSecretToRef: { name: 's', namespace: 'secrets' },
          },
        },
        secrets: true,
        want: [
          ref('v1', 'ConfigMap', 'a', 'default'),
          ref('example.org/v1', 'Bucket', 'b'),
          ref('v1', 'Secret', 's', 'secrets'),
        ],
      },
      secretsNotAsked: {
        reason: 'connection Secrets only with the option',
        object: {
          apiVersion: 'example.org/v1',
          kind: 'XApp',
          metadata: { name: 'shop-x1' },
          spec: { resourceRefs: [ref('v1', 'ConfigMap', 'a', 'default')], writeConnectionSecretToRef: { name: 's' } },
        },
        want: [ref('v1', 'ConfigMap', 'a', 'default')],
      },
      managed: {
        reason: 'a managed resource has no children',
        object: { apiVersion: 'example.org/v1', kind: 'Bucket', metadata: { name: 'b' }, spec: { forProvider: {} } },
        want: [],
      },
      secret: {
        reason: 'a Secret has no children whatever it holds',
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 's', namespace: 'a' },
          spec: { resourceRef: ref('v1', 'X', 'y') },
        },
        want: [],
      },
      malformed: {
        reason: 'refs missing a field are skipped',
        object: v2Xr('shop', [{ kind: 'ConfigMap', name: 'a' } as ObjectRef, ref('v1', 'ConfigMap', 'b')]),
        want: [ref('v1', 'ConfigMap', 'b', 'team-a')],
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        expect(childRefs(c.object, { connectionSecrets: c.secrets === true }), c.reason).to.deep.equal(c.want);
      });
    }
  });

  it('follows a claim to its XR, the XR to a nested XR and both to their composed resources, in ref order', async () => {
    const claim: TracedObject = {
      apiVersion: 'example.org/v1',
      kind: 'App',
      metadata: { name: 'shop', namespace: 'team-a' },
      spec: { resourceRef: ref('example.org/v1', 'XApp', 'shop-x1') },
    };
    const cluster = fakeCluster([
      {
        apiVersion: 'example.org/v1',
        kind: 'XApp',
        metadata: { name: 'shop-x1' },
        spec: {
          resourceRefs: [ref('example.org/v1', 'XDb', 'shop-db'), ref('v1', 'ConfigMap', 'settings', 'default')],
        },
      },
      {
        apiVersion: 'example.org/v1',
        kind: 'XDb',
        metadata: { name: 'shop-db' },
        spec: { resourceRefs: [ref('example.org/v1', 'Bucket', 'data')] },
      },
      { apiVersion: 'example.org/v1', kind: 'Bucket', metadata: { name: 'data' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' } },
    ]);
    expect(shape(await buildTree(claim, cluster.get))).to.deep.equal([
      'App/shop (team-a)',
      '  XApp/shop-x1',
      '    XDb/shop-db',
      '      Bucket/data',
      '    ConfigMap/settings (default)',
    ]);
  });

  it('keeps a resource that cannot be read as its reference with the error, and walks on around it', async () => {
    const root = v2Xr('shop', [ref('v1', 'ConfigMap', 'gone'), ref('v1', 'ConfigMap', 'there')]);
    const cluster = fakeCluster([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'there', namespace: 'team-a' } },
    ]);
    const tree = await buildTree(root, cluster.get);
    expect(shape(tree)).to.deep.equal([
      'XApp/shop (team-a)',
      '  ConfigMap/gone (team-a) ! ConfigMap "gone" not found',
      '  ConfigMap/there (team-a)',
    ]);
    expect(tree.children[0]?.object).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'gone', namespace: 'team-a' },
    });
  });

  it('describes errors with the injected describer', async () => {
    const root = v2Xr('shop', [ref('v1', 'ConfigMap', 'gone')]);
    const tree = await buildTree(root, fakeCluster([]).get, { describeError: () => ({ message: 'described' }) });
    expect(tree.children[0]?.error).to.deep.equal({ message: 'described' });
  });

  it('shows a reference back to an ancestor once without walking it again', async () => {
    const a = v2Xr('a', [ref('example.org/v1', 'XApp', 'b')]);
    const b = v2Xr('b', [ref('example.org/v1', 'XApp', 'a')]);
    const cluster = fakeCluster([a, b]);
    expect(shape(await buildTree(a, cluster.get))).to.deep.equal([
      'XApp/a (team-a)',
      '  XApp/b (team-a)',
      '    XApp/a (team-a)',
    ]);
    expect(cluster.reads).to.have.length(2);
  });
});
