import { expect } from 'chai';
import pino from 'pino';
import { Subject, take } from 'rxjs';
import { ManualClock } from '../../../src/base/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { Informer, withReplay, type WatchEvent } from '../../../src/watch/index.js';
import { configMap, FakeListerWatcher, settle } from './fakeListerWatcher.js';

function informer(lw: FakeListerWatcher): Informer {
  return new Informer({
    name: 'v1/ConfigMap',
    listerWatcher: lw,
    logger: pino({ level: 'silent' }),
    // No resync, and a clock only the test could move: no timer fires in these tests.
    syncIntervalMs: 0,
    clock: new ManualClock(),
    random: () => 1,
  });
}

const summary = (events: WatchEvent[]): string[] =>
  events.map(
    (e) =>
      `${e.type}${e.type === 'add' && e.initial === true ? ' (initial)' : ''} ${e.object.metadata.name}@${String(e.object.metadata.resourceVersion)}`,
  );

describe('watch/withReplay', () => {
  it('gives a subscriber that joins after the first list every cached object once, then the live events', async () => {
    const lw = new FakeListerWatcher();
    lw.listResult = { items: [configMap('a', '1'), configMap('b', '2')], resourceVersion: '2' };
    const shared = informer(lw);
    const early: WatchEvent[] = [];
    shared.events$.subscribe((event) => early.push(event));
    await shared.start();
    await settle();
    lw.current.callbacks.onEvent('ADDED', configMap('c', '3'));

    const late: WatchEvent[] = [];
    shared.events$.subscribe((event) => late.push(event));
    lw.current.callbacks.onEvent('MODIFIED', configMap('a', '4'));
    lw.current.callbacks.onEvent('DELETED', configMap('b', '5'));
    lw.current.callbacks.onEvent('ADDED', configMap('d', '6'));

    expect(summary(early), 'the first subscriber sees the first list as initial adds').to.deep.equal([
      'add (initial) a@1',
      'add (initial) b@2',
      'add c@3',
      'update a@4',
      'delete b@5',
      'add d@6',
    ]);
    expect(summary(late), 'the late subscriber: the cache as it joined, then only what changed after').to.deep.equal([
      'add (initial) a@1',
      'add (initial) b@2',
      'add (initial) c@3',
      'update a@4',
      'delete b@5',
      'add d@6',
    ]);
    await shared.stop();
  });

  it('holds live events that arrive while the cache is replayed and delivers them after it, in order', () => {
    const cached = [configMap('a', '1'), configMap('b', '2')];
    const live = new Subject<WatchEvent>();
    const seen: WatchEvent[] = [];
    withReplay(() => cached, live).subscribe((event) => {
      seen.push(event);
      // A subscriber that writes as it is told: the change arrives while the replay is still going on.
      if (event.object.metadata.name === 'a' && event.type === 'add') {
        live.next({ type: 'update', object: configMap('a', '3'), oldObject: configMap('a', '1') });
      }
      if (event.type === 'update') live.next({ type: 'delete', object: configMap('a', '4') });
    });
    live.next({ type: 'add', object: configMap('c', '5') });
    expect(summary(seen)).to.deep.equal([
      'add (initial) a@1',
      'add (initial) b@2',
      'update a@3',
      'delete a@4',
      'add c@5',
    ]);
  });

  it('replays to each subscriber on its own and completes once the replay is out', () => {
    const live = new Subject<WatchEvent>();
    const cached: KubeObject[] = [configMap('a', '1')];
    const replayed = withReplay(() => cached, live);
    const first: string[] = [];
    const second: string[] = [];
    let completed = false;
    replayed.subscribe((event) => first.push(event.object.metadata.name));
    cached.push(configMap('b', '2'));
    replayed.subscribe({
      next: (event) => {
        second.push(event.object.metadata.name);
        if (second.length === 1) live.complete();
      },
      complete: () => (completed = true),
    });
    expect(first).to.deep.equal(['a']);
    expect(second, 'a completion during the replay waits for it').to.deep.equal(['a', 'b']);
    expect(completed).to.equal(true);
  });

  it('stops replaying to a subscriber that unsubscribes, and lets go of the live stream', () => {
    const live = new Subject<WatchEvent>();
    const seen: string[] = [];
    withReplay(() => [configMap('a', '1'), configMap('b', '2')], live)
      .pipe(take(1))
      .subscribe((event) => seen.push(event.object.metadata.name));
    live.next({ type: 'add', object: configMap('c', '3') });
    expect(seen).to.deep.equal(['a']);
    expect(live.observed, 'the live stream is let go').to.equal(false);
  });
});
