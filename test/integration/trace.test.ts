import { expect } from 'chai';
import { runTrace, type TraceFormat, type TraceOptions } from '../../src/cli/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { compositor } from './compositorProcess.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  composition,
  condition,
  ensureNamespace,
  functions,
  get,
  PT_FUNCTION,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// `compositor trace` against a real API server: a v2 XR composing a nested XR (which composes a ConfigMap) and a
// ConfigMap of its own, a paused XR whose composed resource does not exist, a missing root and an unknown type.

const NAMESPACE = 'trace-test';
const outer = testApi('trace.compositor.test', 'XTrace');
const inner = testApi('trace.compositor.test', 'XTraceInner');
const legacy = testApi('trace.compositor.test', 'XTraceLegacy', 'LegacyCluster');
const CLAIM = { apiVersion: legacy.apiVersion, kind: 'TraceClaim' };

/** The legacy XRD, offering a claim. */
function legacyXrd(): KubeObject {
  const definition = xrd(legacy);
  return {
    ...definition,
    spec: { ...(definition.spec as object), claimNames: { kind: CLAIM.kind, plural: 'traceclaims' } },
  };
}

/** The outer Composition: the nested XR, then a ConfigMap, then auto-ready. */
function outerComposition(): KubeObject {
  const nested = {
    apiVersion: inner.apiVersion,
    kind: inner.kind,
    spec: { image: '', crossplane: { compositionRef: { name: inner.plural } } },
  };
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: outer.plural },
    spec: {
      compositeTypeRef: { apiVersion: outer.apiVersion, kind: outer.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            resources: [
              {
                name: 'nested',
                base: nested,
                patches: [{ type: 'FromCompositeFieldPath', fromFieldPath: 'spec.image', toFieldPath: 'spec.image' }],
              },
              { name: 'settings', base: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } },
            ],
          },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

function xr(
  name: string,
  extra: { annotations?: Record<string, string>; spec?: Record<string, unknown> } = {},
): XrObject {
  return {
    apiVersion: outer.apiVersion,
    kind: outer.kind,
    metadata: { name, namespace: NAMESPACE, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { image: 'nginx', crossplane: { compositionRef: { name: outer.plural } }, ...extra.spec } as XrObject['spec'],
  };
}

function claim(): XrObject {
  return {
    ...CLAIM,
    metadata: { name: 'db', namespace: NAMESPACE },
    spec: { image: 'postgres', compositionRef: { name: legacy.plural } } as XrObject['spec'],
  };
}

async function trace(
  resource: string,
  name: string,
  output: TraceFormat = 'default',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const options: TraceOptions = {
    resource,
    name,
    namespace: NAMESPACE,
    output,
    kubeconfig: controlPlane().kubeconfigPath,
  };
  const code = await runTrace(options, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code, ...out };
}

/** Generated name suffixes replaced, so that the expected tree can be written out. */
function normalized(text: string): string {
  return text.replace(/-[0-9a-f]{12}\b/g, '-xxxxxxxxxxxx');
}

describe('compositor trace (integration)', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine();
    for (const fn of functions()) await apply(client, fn);
    for (const api of [outer, inner]) await apply(client, xrd(api));
    await apply(client, legacyXrd());
    await apply(client, composition(inner));
    await apply(client, composition(legacy));
    await apply(client, outerComposition());
    for (const api of [outer, inner, legacy]) {
      await eventually(`XRD ${api.plural} Established`, async () => {
        const stored = await get<XrObject>(client, xrd(api));
        return condition(stored, 'Established')?.status === 'True' ? true : undefined;
      });
    }
    await apply(client, xr('shop'));
    await eventually('XTrace shop Ready', async () =>
      condition(await get<XrObject>(client, xr('shop')), 'Ready')?.status === 'True' ? true : undefined,
    );
  });

  after(async () => {
    await remove(client, xr('shop'));
    await remove(client, xr('paused'));
    await remove(client, claim());
    await running.stop();
  });

  it('prints the XR, its nested XR and their ConfigMaps as a tree', async () => {
    const result = await trace('xtrace', 'shop');
    expect(result.code, result.stderr).to.equal(0);
    expect(normalized(result.stdout)).to.equal(TREE);
  });

  it('accepts the kind, TYPE.GROUP and TYPE.VERSION.GROUP forms', async () => {
    for (const resource of ['XTrace', 'xtraces.trace.compositor.test', 'xtraces.v1.trace.compositor.test']) {
      const result = await trace(resource, 'shop');
      expect(normalized(result.stdout), resource).to.equal(TREE);
    }
  });

  it('adds RESOURCE in wide output, and prints the same tree as JSON and dot', async () => {
    const wide = await trace('xtrace', 'shop', 'wide');
    expect(wide.stdout.split('\n')[0]).to.match(/^NAME +RESOURCE +SYNCED +READY +STATUS$/);
    expect(wide.stdout).to.match(/├─ XTraceInner\/shop-[0-9a-f]{12} \(trace-test\) +nested +True +True +Available/);

    type Node = { object: { kind: string }; children?: Node[] };
    const json = JSON.parse((await trace('xtrace', 'shop', 'json')).stdout) as Node;
    const kinds = (n: Node): unknown => [n.object.kind, ...(n.children ?? []).map(kinds)];
    expect(kinds(json)).to.deep.equal(['XTrace', ['XTraceInner', ['ConfigMap']], ['ConfigMap']]);

    const dot = (await trace('xtrace', 'shop', 'dot')).stdout;
    expect(dot.startsWith('graph  {\n')).to.equal(true);
    expect(dot.match(/^\tn\d+--n\d+;$/gm)).to.deep.equal(['\tn1--n2;', '\tn1--n3;', '\tn2--n4;']);
  });

  it('shows a paused XR as ReconcilePaused and a composed resource that does not exist as an Error', async () => {
    const refs = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-created' }];
    await apply(
      client,
      xr('paused', { annotations: { 'crossplane.io/paused': 'true' }, spec: { crossplane: { resourceRefs: refs } } }),
    );
    await eventually('the paused XR to say so', async () =>
      condition(await get<XrObject>(client, xr('paused')), 'Synced')?.reason === 'ReconcilePaused' ? true : undefined,
    );
    const result = await trace('xtrace', 'paused');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(
      [
        'NAME                                      SYNCED   READY   STATUS',
        'XTrace/paused (trace-test)                False    -       ReconcilePaused: ...iliation (including deletion) is paused via the pause annotation',
        '└─ ConfigMap/never-created (trace-test)   -        -       Error: configmaps "never-created" not found',
        '',
      ].join('\n'),
    );
  });

  it('follows a claim to its legacy XR and on to its composed ConfigMap', async () => {
    await apply(client, claim());
    await eventually('the claim Ready', async () =>
      condition(await get<XrObject>(client, claim()), 'Ready')?.status === 'True' ? true : undefined,
    );
    const result = await trace('traceclaim', 'db');
    expect(result.code, result.stderr).to.equal(0);
    expect(normalized(result.stdout).replace(/db-[0-9a-z]{5}\b/g, 'db-yyyyy')).to.equal(
      [
        'NAME                                              SYNCED   READY   STATUS',
        'TraceClaim/db (trace-test)                        True     True    Available',
        '└─ XTraceLegacy/db-yyyyy                          True     True    Available',
        '   └─ ConfigMap/db-yyyyy-xxxxxxxxxxxx (default)   -        -       ',
        '',
      ].join('\n'),
    );
  });

  it('fails with one line naming what is missing, and for an unknown type', async () => {
    const missing = await trace('xtrace', 'nowhere');
    expect(missing.code).to.equal(1);
    expect(missing.stdout).to.equal('');
    expect(missing.stderr).to.equal(
      'compositor trace: cannot get requested resource: xtraces.trace.compositor.test "nowhere" not found in namespace "trace-test"\n',
    );
    const unknown = await trace('unicorns', 'x');
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal('compositor trace: the server doesn\'t have a resource type "unicorns"\n');
  });

  it('runs as `compositor trace` from the command line', async () => {
    const args = [
      'trace',
      'xtraces.trace.compositor.test/shop',
      '-n',
      NAMESPACE,
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
    ];
    const result = await compositor(args).exited;
    expect(result.code, result.stderr).to.equal(0);
    expect(normalized(result.stdout)).to.equal(TREE);
  });
});

/** The tree of XR shop, with the generated name suffixes normalized. */
const TREE = [
  'NAME                                             SYNCED   READY   STATUS',
  'XTrace/shop (trace-test)                         True     True    Available',
  '├─ XTraceInner/shop-xxxxxxxxxxxx (trace-test)    True     True    Available',
  '│  └─ ConfigMap/shop-xxxxxxxxxxxx (trace-test)   -        -       ',
  '└─ ConfigMap/shop-xxxxxxxxxxxx (trace-test)      -        -       ',
  '',
].join('\n');
