import { X509Certificate } from 'node:crypto';
import { expect } from 'chai';
import {
  dnsNamesOf,
  generateCa,
  issueLeaf,
  LEAF_VALIDITY_MS,
  needsReissue,
  RENEW_BEFORE_MS,
  validCa,
  type KeyPair,
} from '../../../src/packages/index.js';

describe('packages/certificates', function () {
  this.timeout(20_000);
  let ca: KeyPair;
  const now = new Date('2030-01-01T00:00:00Z');
  before(async () => {
    ca = await generateCa(now);
  });

  it('the CA is a CA, valid for ten years', () => {
    const cert = new X509Certificate(ca.cert);
    expect(cert.ca).to.equal(true);
    expect(cert.subject).to.contain('CN=Crossplane');
    expect(validCa(ca, now)).to.equal(true);
  });

  it('a server certificate carries the Service DNS names as SANs and verifies against the CA', async () => {
    const names = ['fn', 'fn.ns', 'fn.ns.svc'];
    const leaf = await issueLeaf(ca, names, 'server', now);
    const cert = new X509Certificate(leaf.cert);
    expect(dnsNamesOf(leaf.cert)).to.deep.equal(names);
    expect(cert.checkHost('fn.ns')).to.equal('fn.ns');
    expect(cert.checkHost('other.ns')).to.equal(undefined);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).to.equal(true);
    expect(cert.keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.1']);
  });

  it('a client certificate is for client auth', async () => {
    const leaf = await issueLeaf(ca, ['crossplane'], 'client', now);
    expect(new X509Certificate(leaf.cert).keyUsage).to.deep.equal(['1.3.6.1.5.5.7.3.2']);
  });

  it('reissues a missing, foreign, renamed or expiring certificate and keeps a good one', async () => {
    const names = ['fn', 'fn.ns', 'fn.ns.svc'];
    const leaf = await issueLeaf(ca, names, 'server', now);
    const other = await generateCa(now);
    const renewal = new Date(now.getTime() + LEAF_VALIDITY_MS - RENEW_BEFORE_MS + 1000);
    const cases: Record<string, { reason: string; got: Promise<boolean>; want: boolean }> = {
      good: {
        reason: 'signed by the CA, same names, far from expiry',
        got: needsReissue(leaf.cert, ca.cert, names, now),
        want: false,
      },
      missing: { reason: 'no certificate yet', got: needsReissue(undefined, ca.cert, names, now), want: true },
      foreign: { reason: 'signed by another CA', got: needsReissue(leaf.cert, other.cert, names, now), want: true },
      renamed: {
        reason: 'the Service is named otherwise',
        got: needsReissue(leaf.cert, ca.cert, ['x'], now),
        want: true,
      },
      expiring: {
        reason: 'within 30 days of expiry',
        got: needsReissue(leaf.cert, ca.cert, names, renewal),
        want: true,
      },
    };
    for (const [name, c] of Object.entries(cases)) expect(await c.got, `${name}: ${c.reason}`).to.equal(c.want);
  });
});
