import { expect } from 'chai';
import pino from 'pino';
import { ManualClock } from '../../../src/base/index.js';
import type { KubeClient } from '../../../src/kube/index.js';
import { LeaderElector } from '../../../src/manager/index.js';
import { FakeApiServer, type RecordedRequest } from '../fakes/apiServer.js';
import { settle } from '../watch/fakeListerWatcher.js';

// A graceful stop releases the lease so a standby takes over at once. A renewal may be under way when the release
// begins; whichever way their requests interleave, the lease must end up released, never taken back by the renewal
// (the standby would then wait a whole lease duration, as it once did under load).

const NAMESPACE = 'crossplane-system';
const LEASE_PATH = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases/compositor-leader-election`;
const RETRY_MS = 2_000;

interface Gate {
  /** Resolves once a request the gate holds has arrived. */
  arrived: Promise<void>;
  open: () => void;
}

/** Holds the first request `match` accepts until the test opens the gate; every other request passes. */
function gated(client: KubeClient, match: (request: RecordedRequest) => boolean): Gate {
  let open = (): void => undefined;
  let arrive = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let held = false;
  const request = client.request.bind(client);
  client.request = async (method, path, options) => {
    if (!held && match({ method, path, ...(options?.query ? { query: options.query } : {}) })) {
      held = true;
      arrive();
      await opened;
    }
    return request(method, path, options);
  };
  return { arrived, open };
}

async function leader(): Promise<{ api: FakeApiServer; clock: ManualClock; elector: LeaderElector }> {
  const api = new FakeApiServer([
    { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true },
  ]);
  const clock = new ManualClock(1_000_000);
  const elector = new LeaderElector({
    client: api.client,
    namespace: NAMESPACE,
    identity: 'a',
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: RETRY_MS,
    log: pino({ level: 'silent' }),
    clock,
  });
  await elector.acquire(new AbortController().signal);
  return { api, clock, elector };
}

async function holder(api: FakeApiServer): Promise<string | undefined> {
  const lease = await api.client.request<{ spec?: { holderIdentity?: string } }>('GET', LEASE_PATH);
  return lease.spec?.holderIdentity;
}

describe('manager/leader election release while a renewal is under way', () => {
  it('a renewal that reads the lease after the release does not take it back', async () => {
    const { api, clock, elector } = await leader();
    const renewRead = gated(api.client, (r) => r.method === 'GET' && r.path === LEASE_PATH);
    void elector.keepRenewing(new AbortController().signal, () => undefined);
    clock.advance(RETRY_MS);
    await renewRead.arrived;

    await elector.release();
    renewRead.open();
    await settle();

    expect(await holder(api)).to.equal('');
    expect(elector.isLeader).to.equal(false);
  });

  it('a renewal written between the release read and write is retried over, and the lease still ends released', async () => {
    const { api, clock, elector } = await leader();
    const renewWrite = gated(api.client, (r) => r.method === 'PUT' && r.path === LEASE_PATH);
    void elector.keepRenewing(new AbortController().signal, () => undefined);
    clock.advance(RETRY_MS);
    await renewWrite.arrived; // the renewal has read the lease and holds its write

    const releaseWrite = gated(api.client, (r) => r.method === 'PUT' && r.path === LEASE_PATH);
    const released = elector.release();
    await releaseWrite.arrived; // the release has read the same version
    renewWrite.open();
    await settle(); // the renewal's write lands first, so the release's write conflicts
    releaseWrite.open();
    await released;

    expect(await holder(api)).to.equal('');
    const puts = api.requests.filter((r) => r.method === 'PUT' && r.path === LEASE_PATH);
    expect(puts.length, 'renewal, conflicting release, retried release').to.equal(3);
  });
});
