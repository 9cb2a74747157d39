import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { freePort } from '../../../e2e/controlplane/ports.js';
import { ManualClock } from '../../../src/base/index.js';
import { ApiServerUnreachableError, KubeClient, waitForApiServer } from '../../../src/kube/index.js';

/** A clock whose sleeps end at once, recording how long each would have been; `onSleep` runs in each. */
class NoWaitClock extends ManualClock {
  readonly sleeps: number[] = [];
  constructor(private readonly onSleep: () => void = () => undefined) {
    super();
  }
  override sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.onSleep();
    return Promise.resolve();
  }
}

// A loopback port nobody listens on refuses connections at once: a real unreachable server, without a server.
// (Port 1 would not do: fetch rejects it as a "bad port" before connecting.)
let closedPort = 0;
before(async () => {
  closedPort = await freePort();
});

function unreachableClient(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://127.0.0.1:${closedPort}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeClient(kc);
}

describe('kube/waitForApiServer', () => {
  it('retries a bounded number of times with the given delay, then names the server and the cause', async () => {
    const clock = new NoWaitClock();
    const error = await waitForApiServer(unreachableClient(), {
      attempts: 4,
      delayMs: 250,
      clock,
    }).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(ApiServerUnreachableError);
    expect(clock.sleeps, 'one sleep between each attempt, none after the last').to.deep.equal([250, 250, 250]);
    expect((error as Error).message).to.match(
      new RegExp(`^API server https://127\\.0\\.0\\.1:${closedPort} is unreachable after 4 attempts: .*ECONNREFUSED`),
    );
  });

  it('stops retrying when aborted', async () => {
    const abort = new AbortController();
    const clock = new NoWaitClock(() => {
      abort.abort();
    });
    const error = await waitForApiServer(unreachableClient(), {
      attempts: 100,
      delayMs: 1,
      signal: abort.signal,
      clock,
    }).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(ApiServerUnreachableError);
    expect(clock.sleeps).to.have.length(1);
  });
});
