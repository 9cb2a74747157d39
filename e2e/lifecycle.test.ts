// What a platform team does with an XR every day, against compositor deployed by the chart and running under the
// chart's RBAC: create, update, drift from another writer, reconcile request, pause, delete.
import { expect } from 'chai';
import { PAUSED_ANNOTATION, RECONCILE_REQUESTED_AT_ANNOTATION } from '../src/controller/index.js';
import { apply, ensureNamespace, eventsFor, mergePatch, occurrences, remove } from '../test/integration/engine.js';
import { eventually } from '../test/integration/harness.js';
import {
  composedWhen,
  configSet,
  driftConfigMap,
  hasCondition,
  installApi,
  isReady,
  ref,
  xrWhen,
  xrGone,
  at,
  oneComposed,
} from './harness/api.js';
import { target } from './harness/setup.js';

const NS = 'e2e-lifecycle';

describe('e2e: XR lifecycle under the chart', function () {
  before(async () => {
    await ensureNamespace(target().client, NS);
    await installApi();
  });

  it('creates, updates and deletes an XR and exactly its composed resources', async () => {
    const { client } = target();
    await apply(client, configSet(NS, 'app', { count: 2, data: { color: 'blue' } }));
    const ready = await xrWhen(at(NS, 'app'), 'Ready and Synced', isReady);
    expect(ready.status?.observedData).to.deep.equal({ color: 'blue' });
    await composedWhen(
      at(NS, 'app'),
      'two ConfigMaps holding color blue',
      (c) => c.length === 2 && c.every((m) => m.data?.color === 'blue'),
    );

    await mergePatch(client, ref(NS, 'app'), { spec: { count: 3, data: { color: 'green' } } });
    await composedWhen(
      at(NS, 'app'),
      'three ConfigMaps holding color green',
      (c) => c.length === 3 && c.every((m) => m.data?.color === 'green'),
    );
    await xrWhen(
      at(NS, 'app'),
      'status.observedData follows the composed ConfigMap',
      (xr) => xr.status?.observedData?.color === 'green',
    );

    await mergePatch(client, ref(NS, 'app'), { spec: { count: 1 } });
    await composedWhen(at(NS, 'app'), 'only cm-0 left (the others garbage-collected)', (c) => c.length === 1);

    await remove(client, ref(NS, 'app'));
    await xrGone(at(NS, 'app'));
    await composedWhen(at(NS, 'app'), 'no composed ConfigMap left', (c) => c.length === 0);
  });

  it('repairs drift another writer causes in a composed resource, without a poll', async () => {
    const { client } = target();
    await apply(client, configSet(NS, 'drift', { count: 1, data: { color: 'blue' } }));
    await xrWhen(at(NS, 'drift'), 'Ready', isReady);
    const cm = await oneComposed(at(NS, 'drift'));
    await driftConfigMap(cm, 'red');
    await composedWhen(at(NS, 'drift'), 'color back to blue', (c) => c[0]?.data?.color === 'blue', 15_000);
  });

  it('handles each reconcile request once and records it', async () => {
    const { client } = target();
    await apply(client, configSet(NS, 'request', { count: 1, data: { color: 'blue' } }));
    const xr = await xrWhen(at(NS, 'request'), 'Ready', isReady);
    await mergePatch(client, ref(NS, 'request'), {
      metadata: { annotations: { [RECONCILE_REQUESTED_AT_ANNOTATION]: 'token-1' } },
    });
    await xrWhen(
      at(NS, 'request'),
      'lastHandledReconcileAt token-1',
      (x) => x.status?.lastHandledReconcileAt === 'token-1',
    );
    const handled = await eventually('a ReconcileRequestHandled event', async () => {
      const events = await eventsFor(client, NS, xr.metadata.uid as string, 'ReconcileRequestHandled');
      return events.length > 0 ? events : undefined;
    });
    expect(occurrences(handled), JSON.stringify(handled)).to.equal(1);
  });

  it('leaves a paused XR alone, reporting it, and catches up when unpaused', async () => {
    const { client } = target();
    await apply(client, configSet(NS, 'paused', { count: 1, data: { color: 'blue' } }));
    await xrWhen(at(NS, 'paused'), 'Ready', isReady);
    await mergePatch(client, ref(NS, 'paused'), { metadata: { annotations: { [PAUSED_ANNOTATION]: 'true' } } });
    await xrWhen(at(NS, 'paused'), 'Synced False ReconcilePaused', (x) =>
      hasCondition(x, 'Synced', 'False', 'ReconcilePaused'),
    );

    const changed = await mergePatch(client, ref(NS, 'paused'), { spec: { data: { color: 'purple' } } });
    const generation = changed.metadata.generation as number;
    // The paused condition is restamped with the new generation: compositor has seen the change and chose to skip it.
    await xrWhen(
      at(NS, 'paused'),
      `ReconcilePaused observed generation ${generation}`,
      (x) =>
        (x.status?.conditions as { reason: string; observedGeneration?: number }[] | undefined)?.some(
          (c) => c.reason === 'ReconcilePaused' && c.observedGeneration === generation,
        ) ?? false,
    );
    const cm = await oneComposed(at(NS, 'paused'));
    expect(cm.data?.color, 'a paused XR must not change its composed resources').to.equal('blue');

    await mergePatch(client, ref(NS, 'paused'), { metadata: { annotations: { [PAUSED_ANNOTATION]: null } } });
    await composedWhen(at(NS, 'paused'), 'color purple once unpaused', (c) => c[0]?.data?.color === 'purple');
    await xrWhen(at(NS, 'paused'), 'Synced True again', isReady);
  });
});
