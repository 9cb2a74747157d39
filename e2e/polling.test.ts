// Realtime compositions against the poll fallback: with --enable-realtime-compositions=false compositor does not
// watch composed resources, so drift is repaired by the poll interval, per resource when annotated.
import { expect } from 'chai';
import { POLL_INTERVAL_ANNOTATION } from '../src/controller/index.js';
import { apply, ensureNamespace } from '../test/integration/engine.js';
import {
  composedWhen,
  configSet,
  driftConfigMap,
  installApi,
  isReady,
  xrWhen,
  at,
  oneComposed,
} from './harness/api.js';
import { target } from './harness/setup.js';

const NS = 'e2e-polling';

describe('e2e: poll fallback with realtime compositions off', function () {
  before(async () => {
    await ensureNamespace(target().client, NS);
    await installApi();
    // A poll interval far beyond the test, so only the per-resource annotation can explain a repair.
    await target().deploy({ realtimeCompositions: false, pollInterval: '1h' });
  });

  after(async () => {
    await target().deploy();
  });

  it('repairs drift on the poll interval the annotation sets, and reports it in status', async () => {
    const { client } = target();
    const fast = configSet(NS, 'polled-fast', { count: 1, data: { color: 'blue' } });
    fast.metadata.annotations = { [POLL_INTERVAL_ANNOTATION]: '3s' };
    const slow = configSet(NS, 'polled-slow', { count: 1, data: { color: 'blue' } });
    await apply(client, fast);
    await apply(client, slow);
    const ready = await xrWhen(at(NS, 'polled-fast'), 'Ready', isReady);
    expect(ready.status?.effectivePollInterval).to.equal('3s');
    await xrWhen(
      at(NS, 'polled-slow'),
      'Ready with the flag interval',
      (x) => isReady(x) && x.status?.effectivePollInterval === '1h0m0s',
    );
    const fastCm = await oneComposed(at(NS, 'polled-fast'));
    const slowCm = await oneComposed(at(NS, 'polled-slow'));
    await driftConfigMap(slowCm, 'red');
    await driftConfigMap(fastCm, 'red');
    await composedWhen(
      at(NS, 'polled-fast'),
      'color back to blue by the next poll',
      (c) => c[0]?.data?.color === 'blue',
      20_000,
    );
    // A watch would have repaired both within milliseconds; the XR polled hourly still shows the drift.
    const slowNow = await oneComposed(at(NS, 'polled-slow'));
    expect(slowNow.data?.color, 'drift repaired without a poll: composed resources are still watched').to.equal('red');
  });

  it('clamps an annotation below --min-poll-interval and falls back from an invalid one', async () => {
    const { client } = target();
    const clamped = configSet(NS, 'clamped', { count: 1, data: { color: 'blue' } });
    clamped.metadata.annotations = { [POLL_INTERVAL_ANNOTATION]: '10ms' };
    const invalid = configSet(NS, 'invalid', { count: 1, data: { color: 'blue' } });
    invalid.metadata.annotations = { [POLL_INTERVAL_ANNOTATION]: 'soon' };
    await apply(client, clamped);
    await apply(client, invalid);
    await xrWhen(
      at(NS, 'clamped'),
      'effectivePollInterval 1s',
      (x) => isReady(x) && x.status?.effectivePollInterval === '1s',
    );
    await xrWhen(
      at(NS, 'invalid'),
      'effectivePollInterval 1h',
      (x) => isReady(x) && x.status?.effectivePollInterval === '1h0m0s',
    );
  });
});
