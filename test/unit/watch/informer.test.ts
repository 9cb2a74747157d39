import { expect } from 'chai';
import pino from 'pino';
import { Informer, logSubscriberErrors, type WatchEvent } from '../../../src/watch/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { ManualClock, type Timer } from '../../../src/base/index.js';
import { configMap, FakeListerWatcher, settle } from './fakeListerWatcher.js';

/**
 * Timers that never wait: sleeps resolve at once and are recorded; resync fires when the test says so; the silence
 * deadline of a watch runs on a virtual clock that only the test advances.
 */
class FakeTimers extends ManualClock {
  sleeps: number[] = [];
  tick: (() => void) | undefined;
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return signal?.aborted === true ? Promise.reject(new Error('aborted')) : Promise.resolve();
  }
  override setInterval(callback: () => void): Timer {
    this.tick = callback;
    return { cancel: () => (this.tick = undefined) };
  }
}

function setup(): { lw: FakeListerWatcher; timers: FakeTimers; informer: Informer; events: WatchEvent[] } {
  const lw = new FakeListerWatcher();
  const timers = new FakeTimers();
  const informer = new Informer({
    name: 'v1/ConfigMap',
    listerWatcher: lw,
    logger: pino({ level: 'silent' }),
    syncIntervalMs: 1000,
    backoff: { baseMs: 100, capMs: 1000, jitter: 0.5 },
    clock: timers,
    random: () => 1,
  });
  const events: WatchEvent[] = [];
  informer.events$.subscribe((event) => events.push(event));
  return { lw, timers, informer, events };
}

const summary = (events: WatchEvent[]): string[] =>
  events.map((e) => `${e.type} ${e.object.metadata.name}@${String(e.object.metadata.resourceVersion)}`);

describe('watch/Informer supervision', () => {
  it('lists, syncs, then watches from the list resourceVersion', async () => {
    const { lw, informer, events } = setup();
    lw.listResult = { items: [configMap('a', '5')], resourceVersion: '7' };
    void informer.start();
    await informer.waitForSync();
    await settle();
    expect(informer.hasSynced).to.equal(true);
    expect(summary(events)).to.deep.equal(['add a@5']);
    expect(lw.current.resourceVersion).to.equal('7');
    await informer.stop();
  });

  it('turns watch events into add, update (with the old object) and delete, and tracks the resourceVersion', async () => {
    const { lw, informer, events } = setup();
    void informer.start();
    await settle();
    const { callbacks } = lw.current;
    callbacks.onEvent('ADDED', configMap('a', '2', { v: '1' }));
    callbacks.onEvent('MODIFIED', configMap('a', '3', { v: '2' }));
    callbacks.onEvent('BOOKMARK', { metadata: { resourceVersion: '9' } });
    callbacks.onEvent('DELETED', configMap('a', '10'));
    expect(summary(events)).to.deep.equal(['add a@2', 'update a@3', 'delete a@10']);
    const update = events[1];
    expect(update?.type === 'update' ? update.oldObject.data : undefined).to.deep.equal({ v: '1' });
    expect(informer.store.size).to.equal(0);
    // A clean close rewatches from the last resourceVersion seen (the bookmark's successor), without a relist.
    callbacks.onDone(null);
    await settle();
    expect(lw.current.resourceVersion).to.equal('10');
    expect(lw.lists).to.equal(1);
    await informer.stop();
  });

  it('caches and emits objects without metadata.managedFields, listed or watched, keeping everything else', async () => {
    const { lw, informer, events } = setup();
    const managed = (name: string, rv: string): KubeObject => {
      const object = configMap(name, rv, { v: '1' });
      object.metadata.managedFields = [{ manager: 'kubectl', operation: 'Apply' }];
      object.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': '{}' };
      return object;
    };
    lw.listResult = { items: [managed('listed', '5')], resourceVersion: '7' };
    void informer.start();
    await informer.waitForSync();
    await settle();
    lw.current.callbacks.onEvent('ADDED', managed('watched', '8'));
    for (const name of ['listed', 'watched']) {
      const cached = informer.store.get(`ns/${name}`);
      expect(cached?.metadata.managedFields, name).to.equal(undefined);
      expect(cached?.metadata.annotations, name).to.deep.equal({
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
      });
      expect(cached?.data, name).to.deep.equal({ v: '1' });
    }
    expect(events.every((e) => e.object.metadata.managedFields === undefined)).to.equal(true);
    await informer.stop();
  });

  it('relists at once on 410 Gone and emits the difference, including deletions', async () => {
    const { lw, timers, informer, events } = setup();
    lw.listResult = { items: [configMap('a', '1'), configMap('b', '1')], resourceVersion: '1' };
    void informer.start();
    await settle();
    lw.listResult = { items: [configMap('a', '4'), configMap('c', '3')], resourceVersion: '5' };
    lw.current.callbacks.onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    await settle();
    expect(lw.lists).to.equal(2);
    expect(timers.sleeps).to.deep.equal([]);
    expect(summary(events).slice(2)).to.deep.equal(['update a@4', 'add c@3', 'delete b@1']);
    expect(lw.current.resourceVersion).to.equal('5');
    await informer.stop();
  });

  it('backs off when watches keep ending in 410 Gone right after their list, instead of listing in a tight loop', async () => {
    const { lw, timers, informer } = setup();
    void informer.start();
    await settle();
    for (let i = 0; i < 3; i++) {
      lw.current.callbacks.onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
      await settle();
    }
    expect(lw.lists).to.equal(4);
    expect(timers.sleeps, 'the first relist at once, then growing backoff').to.deep.equal([100, 200]);
    // A watch that delivered something before its 410 was healthy: the next relist goes at once again.
    lw.current.callbacks.onEvent('ADDED', configMap('a', '9'));
    lw.current.callbacks.onEvent('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    await settle();
    expect([lw.lists, timers.sleeps.length]).to.deep.equal([5, 2]);
    await informer.stop();
  });

  it('on any other error relists and rewatches after growing, capped backoff', async () => {
    const { lw, timers, informer } = setup();
    void informer.start();
    await settle();
    lw.listError = new Error('connection refused');
    lw.current.callbacks.onDone(Object.assign(new Error('Internal Server Error'), { statusCode: 500 }));
    await settle();
    // The 500 ends the watch (backoff 1), the relist fails (backoff 2), the next relist succeeds.
    expect(timers.sleeps).to.deep.equal([100, 200]);
    expect(lw.lists).to.equal(3);
    for (let i = 0; i < 5; i++) {
      lw.current.callbacks.onDone(new Error('reset'));
      await settle();
    }
    expect(timers.sleeps.at(-1)).to.equal(1000);
    await informer.stop();
  });

  it('rewatches a silent watch without relisting, and backs off only when closes repeat with no events', async () => {
    const { lw, timers, informer } = setup();
    void informer.start();
    await settle();
    const silent = new Error('The operation was aborted due to timeout');
    silent.name = 'TimeoutError';
    lw.current.callbacks.onDone(silent);
    await settle();
    expect(lw.watches).to.have.length(2);
    expect(lw.lists).to.equal(1);
    lw.current.callbacks.onDone(null);
    await settle();
    expect(timers.sleeps).to.deep.equal([]);
    lw.current.callbacks.onDone(null);
    await settle();
    expect(timers.sleeps).to.deep.equal([100]);
    await informer.stop();
  });

  it('rewatch() ends the current watch and resumes from its resourceVersion at once, without relisting', async () => {
    const { lw, timers, informer } = setup();
    void informer.start();
    await settle();
    lw.current.callbacks.onEvent('ADDED', configMap('a', '5'));
    informer.rewatch();
    await settle();
    expect(lw.watches).to.have.length(2);
    expect(lw.watches[0]?.stopped, 'the suspect watch is aborted').to.equal(true);
    expect(lw.current.resourceVersion).to.equal('5');
    expect([lw.lists, timers.sleeps.length], 'no relist, no backoff').to.deep.equal([1, 0]);
    await informer.stop();
    informer.rewatch();
    expect(lw.watches, 'nothing after stop').to.have.length(2);
  });

  it('marks the updates of a relist after a broken watch as collapsing a gap', async () => {
    const { lw, informer, events } = setup();
    lw.listResult = { items: [configMap('a', '1')], resourceVersion: '1' };
    void informer.start();
    await settle();
    lw.listResult = { items: [configMap('a', '3')], resourceVersion: '3' };
    lw.current.callbacks.onDone(new Error('connection reset'));
    await settle();
    await informer.stop();
    const update = events.find((e) => e.type === 'update');
    expect(update, JSON.stringify(events)).to.deep.include({ type: 'update', afterGap: true });
  });

  describe('silence deadline', () => {
    // FakeTimers.random() returns 1: every watch asks for timeoutSeconds 20, so its deadline is 20 s + 3 s grace.
    it('asks for timeoutSeconds 20 and rewatches a watch silent for 23 s, without relisting', async () => {
      const { lw, timers, informer } = setup();
      void informer.start();
      await settle();
      expect(lw.current.options?.timeoutSeconds).to.equal(20);
      lw.current.callbacks.onEvent('ADDED', configMap('a', '4'));
      timers.advance(22_999);
      await settle();
      expect(lw.watches, 'still within the deadline').to.have.length(1);
      timers.advance(1);
      await settle();
      expect(lw.watches).to.have.length(2);
      expect(lw.watches[0]?.stopped, 'the dead watch is aborted, so its socket is not kept').to.equal(true);
      expect(lw.current.resourceVersion).to.equal('4');
      expect(lw.lists).to.equal(1);
      expect(timers.sleeps).to.deep.equal([]);
      await informer.stop();
    });

    it('counts every event, bookmarks included, as life', async () => {
      const { lw, timers, informer } = setup();
      void informer.start();
      await settle();
      timers.advance(20_000);
      lw.current.callbacks.onEvent('BOOKMARK', { metadata: { resourceVersion: '9' } });
      timers.advance(22_999);
      await settle();
      expect(lw.watches).to.have.length(1);
      timers.advance(1);
      await settle();
      expect(lw.watches).to.have.length(2);
      expect(lw.current.resourceVersion).to.equal('9');
      await informer.stop();
    });

    it('does not fire once the server has ended the watch on time, and never backs off idle watches', async () => {
      const { lw, timers, informer } = setup();
      void informer.start();
      await settle();
      // An idle watch gets no event before the server ends it (as measured on kube-apiserver v1.37).
      for (let i = 0; i < 5; i++) {
        timers.advance(20_000);
        lw.current.callbacks.onDone(null);
        await settle();
      }
      expect(lw.watches).to.have.length(6);
      expect(timers.sleeps, 'a watch that lasted its timeout is healthy, events or not').to.deep.equal([]);
      timers.advance(3_000);
      await settle();
      expect(lw.watches, 'the deadlines of ended watches were cancelled').to.have.length(6);
      expect(lw.watches.slice(0, 5).every((w) => w.stopped)).to.equal(true);
      await informer.stop();
    });

    it('also ends a watch whose response never came, and closes it when it opens late', async () => {
      const { lw, timers, informer, events } = setup();
      lw.connecting = true;
      void informer.start();
      await settle();
      timers.advance(23_000);
      await settle();
      expect(lw.watches).to.have.length(2);
      const late = lw.watches[0];
      late?.open();
      await settle();
      expect(late?.stopped).to.equal(true);
      late?.callbacks.onEvent('ADDED', configMap('ghost', '8'));
      expect(events, 'a replaced watch delivers nothing').to.deep.equal([]);
      lw.current.open();
      lw.current.callbacks.onEvent('ADDED', configMap('a', '9'));
      expect(summary(events)).to.deep.equal(['add a@9']);
      await informer.stop();
    });

    it('stops while a watch is still connecting', async () => {
      const { lw, timers, informer } = setup();
      lw.connecting = true;
      void informer.start();
      await settle();
      await informer.stop();
      lw.current.open();
      await settle();
      expect(lw.current.stopped).to.equal(true);
      expect(timers.pendingTimers(), 'no deadline left behind').to.equal(0);
      expect(lw.watches).to.have.length(1);
    });

    it('takes an explicit silence timeout over the derived one', async () => {
      const lw = new FakeListerWatcher();
      const timers = new FakeTimers();
      const informer = new Informer({
        name: 'v1/ConfigMap',
        listerWatcher: lw,
        logger: pino({ level: 'silent' }),
        syncIntervalMs: 0,
        clock: timers,
        random: () => 1,
        silenceTimeoutMs: 1_000,
      });
      void informer.start();
      await settle();
      timers.advance(1_000);
      await settle();
      expect(lw.watches).to.have.length(2);
      await informer.stop();
    });
  });

  it('marks resync events as such', async () => {
    const { lw, timers, informer, events } = setup();
    lw.listResult = { items: [configMap('a', '1')], resourceVersion: '1' };
    void informer.start();
    await settle();
    timers.tick?.();
    expect(summary(events)).to.deep.equal(['add a@1', 'resync a@1']);
    await informer.stop();
  });

  it('keeps delivering to every subscriber when one throws', async () => {
    const { lw, informer, events } = setup();
    const logged: string[] = [];
    logSubscriberErrors(pino({ level: 'error' }, { write: (line: string) => logged.push(line) }));
    let calls = 0;
    informer.events$.subscribe(() => {
      calls++;
      throw new Error('boom');
    });
    void informer.start();
    await settle();
    lw.current.callbacks.onEvent('ADDED', configMap('a', '2'));
    lw.current.callbacks.onEvent('ADDED', configMap('b', '3'));
    expect(calls).to.equal(2);
    expect(summary(events)).to.deep.equal(['add a@2', 'add b@3']);
    // RxJS reports a subscriber's error on a zero-delay timer.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(logged.join('')).to.include('boom');
    await informer.stop();
  });

  it('stops cleanly: the watch is closed, the cache freed and the stream completed', async () => {
    const { lw, informer } = setup();
    lw.listResult = { items: [configMap('a', '1')], resourceVersion: '1' };
    let completed = false;
    informer.events$.subscribe({ complete: () => (completed = true) });
    void informer.start();
    await settle();
    await informer.stop();
    expect(lw.current.stopped).to.equal(true);
    expect(informer.store.size).to.equal(0);
    expect(completed).to.equal(true);
    expect(lw.watches).to.have.length(1);
  });
});
