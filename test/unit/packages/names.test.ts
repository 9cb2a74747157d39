import { expect } from 'chai';
import { dnsNamesForService, revisionName, serverSecretName, serviceEndpoint } from '../../../src/packages/index.js';

describe('packages/names', () => {
  const cases: Record<string, { reason: string; fn: string; pkg: string; want: RegExp }> = {
    short: {
      reason: 'name, dash, 12 hex',
      fn: 'function-kcl',
      pkg: 'xpkg.io/a/function-kcl:v1',
      want: /^function-kcl-[0-9a-f]{12}$/,
    },
    long: { reason: 'the name is cut to 50 characters', fn: 'f'.repeat(70), pkg: 'x:v1', want: /^f{50}-[0-9a-f]{12}$/ },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`revisionName: ${name}`, () => {
      expect(revisionName(c.fn, c.pkg), c.reason).to.match(c.want);
    });
  }

  it('one package reference, one revision name; another reference, another name', () => {
    expect(revisionName('fn', 'img:v1')).to.equal(revisionName('fn', 'img:v1'));
    expect(revisionName('fn', 'img:v1')).to.not.equal(revisionName('fn', 'img:v2'));
  });

  it('names the server Secret, the Service DNS names and the endpoint as Crossplane does', () => {
    expect(serverSecretName('function-kcl')).to.equal('function-kcl-tls-server');
    expect(dnsNamesForService('fn', 'ns')).to.deep.equal(['fn', 'fn.ns', 'fn.ns.svc']);
    expect(serviceEndpoint('fn', 'ns')).to.equal('dns:///fn.ns:9443');
  });
});
