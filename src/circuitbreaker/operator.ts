import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import type { Breaker } from './breaker.js';
import type { OwnWrites } from './ownWrites.js';
import { admit, type XrEvent } from './xrEvent.js';

export interface CircuitBreakerOperatorOptions {
  breaker: Breaker;
  /** Echoes of the writes recorded here pass nothing and cost nothing. */
  ownWrites?: OwnWrites;
  /** Runs the close-on-time timer. Its clock must be the breaker's (TestScheduler in tests, both real otherwise). */
  scheduler?: SchedulerLike;
}

/**
 * Applies the per-XR breaker between the watch streams and the work queue: takes XR events, emits the XR keys to
 * enqueue. Besides the keys of events that pass, it emits the key of every circuit that closes at the end of its
 * cooldown, at that moment, with no event needed: an XR whose events were dropped is reconciled then, instead of
 * staying stale until something else changes (upstream #7703).
 *
 * One timer is armed at a time, for the breaker's next due moment; it is cancelled on unsubscribe, and the output
 * completes when the input does.
 *
 * @example
 * merge(xrEvents$, composedEvents$, revisionEvents$)
 *   .pipe(circuitBreaker({ breaker, ownWrites }))
 *   .subscribe((key) => queue.add(key));
 */
export function circuitBreaker(options: CircuitBreakerOperatorOptions): OperatorFunction<XrEvent, string> {
  const { breaker, ownWrites } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  return (events) =>
    new Observable<string>((subscriber) => {
      let timer: Subscription | undefined;
      let timerAt = Infinity;
      const arm = (): void => {
        const due = breaker.nextDueAt();
        if (due === undefined || due >= timerAt) return;
        timer?.unsubscribe();
        timerAt = due;
        timer = scheduler.schedule(
          () => {
            timer = undefined;
            timerAt = Infinity;
            for (const key of breaker.advance()) subscriber.next(key);
            arm();
          },
          Math.max(0, due - scheduler.now()),
        );
      };
      const decide = (event: XrEvent): void => {
        const key = admit(event, breaker, ownWrites);
        if (key !== undefined) subscriber.next(key);
        arm();
      };
      const subscription = events.subscribe({
        next(event) {
          // An event about an object we are writing may be that write's echo: judge it once the write is in.
          const pending = ownWrites?.pending(event.object);
          if (pending === undefined) {
            decide(event);
            return;
          }
          void pending.then(() => {
            if (!subscriber.closed) decide(event);
          });
        },
        error(error: unknown) {
          subscriber.error(error);
        },
        complete() {
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        timer?.unsubscribe();
      };
    });
}
