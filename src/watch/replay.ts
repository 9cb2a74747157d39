import { Observable } from 'rxjs';
import type { KubeObject } from '../kube/index.js';
import type { WatchEvent } from './events.js';

/**
 * An informer's events as a subscriber that joins at any time sees them, as client-go's shared informer treats a
 * handler added after start: first every cached object as an `add` marked `initial`, then the live events. The
 * live stream is joined before the cache is read and whatever it delivers meanwhile (only a subscriber's own
 * synchronous writes can) waits until the replay is out, so nothing falls between the two and nothing comes twice:
 * the replay is the cache at one instant and the live events are the changes after it.
 *
 * @example
 * const events$ = withReplay(() => store.list(), subject.asObservable());
 */
export function withReplay<T extends KubeObject>(
  cached: () => readonly T[],
  live$: Observable<WatchEvent<T>>,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    const held: WatchEvent<T>[] = [];
    // An object, so the compiler sees the callbacks change it.
    const state = { replaying: true, completed: false };
    const subscription = live$.subscribe({
      next: (event) => {
        if (state.replaying) held.push(event);
        else subscriber.next(event);
      },
      error: (err: unknown) => {
        subscriber.error(err);
      },
      complete: () => {
        if (state.replaying) state.completed = true;
        else subscriber.complete();
      },
    });
    for (const object of cached()) {
      if (subscriber.closed) break;
      subscriber.next({ type: 'add', object, initial: true });
    }
    // Held events may hold more behind them (a subscriber writing as it is told): out in order until none is left.
    for (let event = held.shift(); event !== undefined && !subscriber.closed; event = held.shift()) {
      subscriber.next(event);
    }
    state.replaying = false;
    if (state.completed) subscriber.complete();
    return subscription;
  });
}
