import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { EventRecorder, type EventTarget, type KubeClient } from '../../src/kube/index.js';
import { controlPlane } from './harness.js';

interface Event {
  metadata: { name: string; namespace: string };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: string;
  regarding: Record<string, string>;
}

const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('kube/EventRecorder against the API server (integration)', () => {
  const namespace = `events-${randomBytes(4).toString('hex')}`;
  let client: KubeClient;
  let warnings: string[];
  let recorder: EventRecorder;

  before(async () => {
    client = controlPlane().client();
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
  });

  beforeEach(() => {
    // The recorder never throws, so a rejected write would only show as a warning: collect them and insist on none.
    warnings = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    recorder = new EventRecorder({ client, logger, reportingInstance: 'integration-test' });
  });

  after(async () => {
    await client.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
  });

  it('aggregates 5 identical Warnings about a ConfigMap into one Event with series.count 5', async () => {
    const configMap = await client.request<EventTarget & { metadata: { uid: string; resourceVersion: string } }>(
      'POST',
      `/api/v1/namespaces/${namespace}/configmaps`,
      { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noisy' } } },
    );
    for (let i = 0; i < 5; i++) {
      recorder.event(configMap, { type: 'Warning', reason: 'ComposeResources', message: 'cannot compose: boom' });
    }
    await recorder.flush();
    expect(warnings).to.deep.equal([]);

    const events = await eventsAbout(client, namespace, configMap.metadata.uid);
    expect(events).to.have.length(1);
    const [event] = events as [Event];
    expect(event.series?.count).to.equal(5);
    expect(event.series?.lastObservedTime).to.match(MICRO_TIME);
    expect(event.eventTime).to.match(MICRO_TIME);
    expect(event.metadata.name).to.match(/^noisy\.[0-9a-f]{16}$/);
    expect(event).to.include({
      type: 'Warning',
      reason: 'ComposeResources',
      action: 'ComposeResources',
      note: 'cannot compose: boom',
      reportingController: 'compositor.crossplane.io/compositor',
      reportingInstance: 'integration-test',
    });
    expect(event.regarding).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'noisy',
      namespace,
      uid: configMap.metadata.uid,
      resourceVersion: configMap.metadata.resourceVersion,
    });
  });

  it("writes 25 of 30 distinct Normal Events about one object (client-go's budget) and every Warning", async () => {
    const configMap = await client.request<EventTarget & { metadata: { uid: string } }>(
      'POST',
      `/api/v1/namespaces/${namespace}/configmaps`,
      { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'chatty' } } },
    );
    for (let i = 0; i < 30; i++) {
      recorder.event(configMap, { type: 'Normal', reason: 'Progress', message: `step ${i}` });
    }
    for (let i = 0; i < 3; i++) {
      recorder.event(configMap, { type: 'Warning', reason: 'ComposeResources', message: `cannot compose ${i}` });
    }
    await recorder.flush();
    expect(warnings).to.deep.equal([]);

    const events = await eventsAbout(client, namespace, configMap.metadata.uid);
    const notes = (type: string): string[] =>
      events
        .filter((e) => e.type === type)
        .map((e) => e.note)
        .sort();
    expect(notes('Normal')).to.deep.equal(Array.from({ length: 25 }, (_, i) => `step ${i}`).sort());
    expect(notes('Warning')).to.deep.equal(['cannot compose 0', 'cannot compose 1', 'cannot compose 2']);
  });

  it('records an Event about a cluster-scoped object in default, with an over-long note the server accepts', async () => {
    const ns = await client.request<{ metadata: { name: string; uid: string } }>(
      'GET',
      `/api/v1/namespaces/${namespace}`,
    );
    const target = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns.metadata.name, uid: ns.metadata.uid } };
    recorder.event(target, { type: 'Normal', reason: 'Observed', message: 'é'.repeat(2_000) });
    await recorder.flush();
    expect(warnings).to.deep.equal([]);

    const [event, ...more] = await eventsAbout(client, 'default', ns.metadata.uid);
    expect(more).to.deep.equal([]);
    expect(event?.metadata.namespace).to.equal('default');
    expect(event?.series).to.equal(undefined);
    expect(Buffer.byteLength(event?.note ?? '')).to.be.at.most(1024);
    expect(event?.regarding).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Namespace',
      name: namespace,
      uid: ns.metadata.uid,
    });
  });
});

async function eventsAbout(client: KubeClient, namespace: string, uid: string): Promise<Event[]> {
  const list = await client.request<{ items: Event[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${namespace}/events`);
  return list.items.filter((event) => event.regarding.uid === uid);
}
