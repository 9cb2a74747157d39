import { expect } from 'chai';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  ensureNamespace,
  get,
  installApi,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// Every metric the table of docs/metrics.md names, with its labels, after one XR was reconciled.
describe('metrics', function () {
  this.timeout(120_000);
  const api = testApi('metrics.compositor.test', 'XMeasured');
  const xr: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'measured', namespace: 'metrics-test' },
    spec: { image: 'nginx' } as XrObject['spec'],
  };
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, 'metrics-test');
    running = await startEngine();
    await installApi(client, api);
    await apply(client, xr);
    await eventually('the XR Ready', async () =>
      condition(await get<XrObject>(client, xr), 'Ready')?.status === 'True' ? true : undefined,
    );
  });

  after(async () => {
    await remove(client, xr);
    await running.stop();
  });

  it('exposes the controller-runtime, workqueue, breaker, function, engine and client metrics with their labels', async () => {
    const series = parseSeries(await running.metrics.registry.metrics());
    const has = (name: string, labels: Record<string, string>, atLeast = 0): boolean =>
      series.some(
        (s) => s.name === name && s.value >= atLeast && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );
    const controller = { controller: api.controller };
    const checks: [string, boolean][] = [
      [
        'controller_runtime_reconcile_total',
        // One reconcile creates the XR's resources and finds them ready (the settling pass): it asks for no requeue.
        has('controller_runtime_reconcile_total', { ...controller, result: 'success' }, 1),
      ],
      ['controller_runtime_reconcile_errors_total', has('controller_runtime_reconcile_errors_total', controller)],
      [
        'controller_runtime_reconcile_time_seconds',
        has('controller_runtime_reconcile_time_seconds_count', controller, 1),
      ],
      [
        'controller_runtime_max_concurrent_reconciles',
        has('controller_runtime_max_concurrent_reconciles', controller, 10),
      ],
      ['controller_runtime_active_workers', has('controller_runtime_active_workers', controller)],
      ['workqueue_adds_total', has('workqueue_adds_total', { name: api.controller }, 1)],
      ['workqueue_depth', has('workqueue_depth', { name: api.controller })],
      ['circuit_breaker_events_total', has('circuit_breaker_events_total', { ...controller, result: 'Allowed' }, 1)],
      ['circuit_breaker_opens_total', has('circuit_breaker_opens_total', controller)],
      [
        'function_run_seconds',
        has('function_run_seconds_count', { function: 'function-patch-and-transform', result: 'success' }, 1),
      ],
      ['engine_controllers_started_total', has('engine_controllers_started_total', controller, 1)],
      ['engine_watches_started_total', has('engine_watches_started_total', { type: `${api.kind}.${api.group}` }, 1)],
      ['engine_watches_started_total (core kind)', has('engine_watches_started_total', { type: 'ConfigMap' }, 1)],
      ['rest_client_requests_total', has('rest_client_requests_total', { method: 'PATCH', code: '200' }, 1)],
    ];
    const missing = checks.filter(([, ok]) => !ok).map(([name]) => name);
    const seen = series.filter(
      (s) => /^(controller_runtime|engine|function)/.test(s.name) && !s.name.endsWith('_bucket'),
    );
    expect(missing, JSON.stringify(seen)).to.deep.equal([]);
  });
});

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition. */
function parseSeries(text: string): Series[] {
  return text.split('\n').flatMap((line) => {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) return [];
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[key] = value;
    return [{ name: match[1] ?? '', labels, value: Number(match[3]) }];
  });
}
