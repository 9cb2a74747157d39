import { expect } from 'chai';
import { MAX_TIMER_DELAY_MS, monotonicClock, systemClock } from '../../../src/base/index.js';

describe('base/clock timers', () => {
  // Node fires a setTimeout past 2^31-1 ms after 1 ms (with a TimeoutOverflowWarning): a queue armed for a poll
  // interval of a month would spin. Clamped, no warning is raised and the timer is simply early.
  for (const [name, clock] of Object.entries({ systemClock, monotonicClock })) {
    it(`${name} clamps a delay past setTimeout's range instead of firing at once`, async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error): void => {
        warnings.push(w.name);
      };
      process.on('warning', onWarning);
      let fired = false;
      const timer = clock.setTimer(() => {
        fired = true;
      }, 30 * 86_400_000);
      // Warnings are emitted on the next tick; a timer set to 1 ms would be due after a couple of immediates.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      timer.cancel();
      process.off('warning', onWarning);
      expect(warnings).to.not.include('TimeoutOverflowWarning');
      expect(fired).to.equal(false);
      expect(MAX_TIMER_DELAY_MS).to.equal(2_147_483_647);
    });
  }
});
