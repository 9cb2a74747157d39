import { X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import pino from 'pino';
import { ManualClock } from '../../../src/base/index.js';
import { ApiError } from '../../../src/kube/index.js';
import {
  ClientCertificate,
  LEAF_VALIDITY_MS,
  RENEW_BEFORE_MS,
  TlsSecrets,
  type TlsBundle,
} from '../../../src/packages/index.js';
import { FakeApiServer } from '../fakes/index.js';

const NS = 'crossplane-system';
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Moves the clock to the next timer and waits for the attempt it started to end. */
async function fire(clock: ManualClock, cert: ClientCertificate): Promise<void> {
  clock.advanceTo(clock.nextTimerAt() ?? clock.now());
  await cert.idle();
}

function setup(options: { issue: boolean; server?: FakeApiServer; clock?: ManualClock }): {
  server: FakeApiServer;
  clock: ManualClock;
  cert: ClientCertificate;
} {
  const server = options.server ?? new FakeApiServer();
  const clock = options.clock ?? new ManualClock(T0);
  const secrets = new TlsSecrets({ client: server.client, namespace: NS, clock });
  const logger = pino({ level: 'silent' });
  // No refresh before renewal is due, so the only timer is the renewal (or the backoff) under test.
  const cert = new ClientCertificate({ secrets, namespace: NS, issue: options.issue, logger, clock, refreshMs: 1e12 });
  return { server, clock, cert };
}

function validity(bundle: TlsBundle | undefined): { from: number; to: number } {
  const x = new X509Certificate(bundle?.cert ?? '');
  return { from: Date.parse(x.validFrom), to: Date.parse(x.validTo) };
}

describe('packages/ClientCertificate', () => {
  it('issues at start and renews RENEW_BEFORE_MS before expiry, while the old certificate is still valid', async () => {
    const { clock, cert } = setup({ issue: true });
    await cert.start();
    const first = cert.current();
    expect(validity(first).to - T0).to.be.closeTo(LEAF_VALIDITY_MS, 1_000);
    const renewAt = validity(first).to - RENEW_BEFORE_MS;
    expect(clock.nextTimerAt(), 'the next look is when renewal is due').to.be.closeTo(renewAt, 1_000);

    await fire(clock, cert);
    const renewed = cert.current();
    expect(renewed, 'a new object, so callers rebuild their credentials').to.not.equal(first);
    expect(renewed?.cert).to.not.equal(first?.cert);
    expect(renewed?.ca, 'the same CA').to.equal(first?.ca);
    expect(validity(renewed).from).to.be.closeTo(renewAt, 1_000);
    expect(validity(first).to, 'renewed before the old one expired').to.be.greaterThan(clock.now());
    await cert.stop();
  });

  it('on another shard, reads what shard 0 issued and picks up its renewal', async () => {
    const issuer = setup({ issue: true });
    await issuer.cert.start();
    const reader = setup({ issue: false, server: issuer.server, clock: new ManualClock(T0) });
    await reader.cert.start();
    expect(reader.cert.current()?.cert).to.equal(issuer.cert.current()?.cert);

    await fire(issuer.clock, issuer.cert);
    await fire(reader.clock, reader.cert);
    expect(reader.cert.current()?.cert).to.equal(issuer.cert.current()?.cert);
    await issuer.cert.stop();
    await reader.cert.stop();
  });

  it('never fails its start: it reports why and retries with backoff until the Secret can be written', async () => {
    const { server, clock, cert } = setup({ issue: true });
    const missing = new ApiError(404, 'NotFound', 'namespaces "crossplane-system" not found');
    const createsSecret = (request: { method: string; path: string }): boolean =>
      request.method === 'POST' && request.path.endsWith('/secrets');
    // The first two attempts fail as they do before the namespace exists.
    server.failNext(createsSecret, missing);
    server.failNext(createsSecret, missing);
    await cert.start();
    expect(cert.current()).to.equal(undefined);
    expect(cert.problem()).to.contain('cannot create or update secret: crossplane-root-ca');
    expect(clock.nextTimerAt()).to.equal(T0 + 1_000);
    await fire(clock, cert);
    expect(clock.nextTimerAt(), 'backs off, doubling').to.equal(T0 + 3_000);
    await fire(clock, cert);
    expect(cert.current()).to.not.equal(undefined);
    await cert.stop();
  });
});
