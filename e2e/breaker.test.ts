// The per-XR circuit breaker under an update storm from another writer (as upstream's e2e-circuit-breaker): the
// circuit opens, the XR says so in Responsive, and it closes again after the cooldown with the XR converged.
import { apply, ensureNamespace } from '../test/integration/engine.js';
import {
  composedWhen,
  configSet,
  driftConfigMap,
  hasCondition,
  installApi,
  isReady,
  xrWhen,
  at,
  oneComposed,
} from './harness/api.js';
import { target } from './harness/setup.js';

const NS = 'e2e-breaker';
const STORM_UPDATES = 60;
const STORM_SPACING_MS = 50;

describe('e2e: circuit breaker under an update storm', function () {
  before(async () => {
    await ensureNamespace(target().client, NS);
    await installApi();
  });

  it('opens the circuit of the stormed XR only, then closes it and converges', async () => {
    const { client } = target();
    await apply(client, configSet(NS, 'stormed', { count: 1, data: { color: 'blue' } }));
    await apply(client, configSet(NS, 'bystander', { count: 1, data: { color: 'blue' } }));
    await xrWhen(at(NS, 'stormed'), 'Ready and Responsive', (x) => isReady(x) && hasCondition(x, 'Responsive', 'True'));
    await xrWhen(at(NS, 'bystander'), 'Ready', isReady);
    const cm = await oneComposed(at(NS, 'stormed'));
    // e2e values: burst 40, refill 2/s. 60 updates 50 ms apart cost 120 tokens in 3 s: far beyond the bucket.
    for (let i = 0; i < STORM_UPDATES; i++) {
      await driftConfigMap(cm, `storm-${i}`);
      await new Promise((resolve) => setTimeout(resolve, STORM_SPACING_MS));
    }
    await xrWhen(at(NS, 'stormed'), 'Responsive False WatchCircuitOpen', (x) =>
      hasCondition(x, 'Responsive', 'False', 'WatchCircuitOpen'),
    );
    const bystander = await xrWhen(at(NS, 'bystander'), 'Ready', isReady);
    if (!hasCondition(bystander, 'Responsive', 'True')) throw new Error('the bystander XR lost its circuit too');
    // Cooldown 10 s: the circuit closes, the XR is requeued and repairs the last drift.
    await xrWhen(
      at(NS, 'stormed'),
      'Responsive True again',
      (x) => hasCondition(x, 'Responsive', 'True', 'WatchCircuitClosed'),
      60_000,
    );
    await composedWhen(at(NS, 'stormed'), 'color back to blue', (c) => c[0]?.data?.color === 'blue', 30_000);
  });
});
