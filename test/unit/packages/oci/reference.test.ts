import { expect } from 'chai';
import {
  credentialsFor,
  credentialsFromSecrets,
  InvalidPullSecretError,
  InvalidReferenceError,
  NOT_FULLY_QUALIFIED,
  parseChallenge,
  parseReference,
  realmProblem,
  type Reference,
} from '../../../../src/packages/oci/index.js';
import { pullSecret } from '../../fakes/registry.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseReference', () => {
  const valid: Record<string, { ref: string; want: Reference }> = {
    tag: {
      ref: 'xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.5.0',
      want: { registry: 'xpkg.crossplane.io', repository: 'crossplane-contrib/provider-nop', tag: 'v0.5.0' },
    },
    digest: {
      ref: `xpkg.crossplane.io/crossplane-contrib/provider-nop@${DIGEST}`,
      want: { registry: 'xpkg.crossplane.io', repository: 'crossplane-contrib/provider-nop', digest: DIGEST },
    },
    'tag and digest': {
      ref: `registry.example.com/repo/package:v1@${DIGEST}`,
      want: { registry: 'registry.example.com', repository: 'repo/package', tag: 'v1', digest: DIGEST },
    },
    'loopback with a port': {
      ref: '127.0.0.1:5000/org/pkg:v1',
      want: { registry: '127.0.0.1:5000', repository: 'org/pkg', tag: 'v1' },
    },
  };
  for (const [name, { ref, want }] of Object.entries(valid)) {
    it(`parses ${name}`, () => {
      expect(parseReference(ref)).to.deep.equal(want);
    });
  }

  const invalid: Record<string, { ref: string; reason: string }> = {
    'no registry': { ref: 'crossplane-contrib/provider-nop:v0.5.0', reason: NOT_FULLY_QUALIFIED },
    'no tag or digest': { ref: 'xpkg.crossplane.io/crossplane-contrib/provider-nop', reason: NOT_FULLY_QUALIFIED },
    'a registry without a dot': { ref: 'localhost:5000/org/pkg:v1', reason: NOT_FULLY_QUALIFIED },
    'uppercase repository': { ref: 'xpkg.crossplane.io/Org/pkg:v1', reason: 'must be lowercase' },
    'a short digest': { ref: 'xpkg.crossplane.io/org/pkg@sha256:abc', reason: 'is not sha256:<64 hex>' },
  };
  for (const [name, { ref, reason }] of Object.entries(invalid)) {
    it(`refuses ${name}`, () => {
      expect(() => parseReference(ref))
        .to.throw(InvalidReferenceError)
        .with.property('message')
        .that.contains(reason);
    });
  }
});

describe('pull secret credentials', () => {
  const ref = parseReference('registry.example.com:5000/org/pkg:v1');

  it('matches the host and port of the reference, the most specific key first', () => {
    const all = credentialsFromSecrets([
      pullSecret('registry.example.com:5000', 'general', 'a'),
      pullSecret('registry.example.com:5000/org', 'org', 'b'),
      pullSecret('registry.example.com', 'noport', 'c'),
    ]);
    expect(credentialsFor(ref, all)).to.deep.equal({ username: 'org', password: 'b' });
    expect(credentialsFor(parseReference('registry.example.com:5000/other/pkg:v1'), all)?.username).to.equal('general');
    expect(credentialsFor(parseReference('other.example.com/org/pkg:v1'), all)).to.equal(undefined);
  });

  it('matches glob host labels and https:// keys', () => {
    const all = credentialsFromSecrets([pullSecret('https://*.example.com:5000/', 'glob', 'g')]);
    expect(credentialsFor(ref, all)?.username).to.equal('glob');
  });

  const globs: Record<string, { reason: string; key: string; host: string; want: boolean }> = {
    'star in a label': {
      reason: '* is any run within one label',
      key: 'r*y.example.com',
      host: 'registry.example.com',
      want: true,
    },
    'empty star': { reason: '* may be empty', key: 'reg*istry.example.com', host: 'registry.example.com', want: true },
    'question mark': {
      reason: '? is exactly one character',
      key: 'registr?.example.com',
      host: 'registry.example.com',
      want: true,
    },
    'question mark short': {
      reason: '? never matches nothing',
      key: 'registry?.example.com',
      host: 'registry.example.com',
      want: false,
    },
    'star across labels': {
      reason: 'labels match one to one',
      key: '*.com',
      host: 'registry.example.com',
      want: false,
    },
    'literal dot rest': {
      reason: 'other characters match themselves',
      key: 'r+gistry.example.com',
      host: 'registry.example.com',
      want: false,
    },
    'star then suffix': {
      reason: 'a mismatch resumes after the last *',
      key: 'r*r*y.example.com',
      host: 'registry.example.com',
      want: true,
    },
    'suffix missing': {
      reason: 'after its only "ry" the label has no y left for the key',
      key: '*ry*y.example.com',
      host: 'registry.example.com',
      want: false,
    },
  };
  for (const [name, { reason, key, host, want }] of Object.entries(globs)) {
    it(`matches glob keys: ${name}`, () => {
      const all = credentialsFromSecrets([pullSecret(key, 'glob', 'g')]);
      expect(credentialsFor(parseReference(`${host}/org/pkg:v1`), all)?.username === 'glob', reason).to.equal(want);
    });
  }

  it('matches a key of thirty * against a thirty-character label in well under a second', () => {
    // A backtracking RegExp of thirty [^.]* takes tens of seconds here; the glob matcher a few microseconds.
    const all = credentialsFromSecrets([pullSecret(`${'*'.repeat(30)}x.example.com`, 'glob', 'g')]);
    const started = performance.now();
    const found = credentialsFor(parseReference(`${'a'.repeat(30)}.example.com/org/pkg:v1`), all);
    const ms = performance.now() - started;
    expect(found).to.equal(undefined);
    expect(ms, `took ${ms.toFixed(1)} ms`).to.be.below(100);
  });

  it('refuses a Secret that is not a Docker config', () => {
    expect(() => credentialsFromSecrets([{ metadata: { name: 'opaque' }, type: 'Opaque', data: {} }]))
      .to.throw(InvalidPullSecretError)
      .with.property('message')
      .that.contains('cannot use pull secret "opaque"');
    const broken = {
      metadata: { name: 'b' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': 'e30K!' },
    };
    expect(() => credentialsFromSecrets([broken])).to.throw(InvalidPullSecretError);
  });
});

describe('parseChallenge', () => {
  it('reads a Bearer challenge with quoted parameters', () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull"',
      ),
    ).to.deep.equal({
      scheme: 'bearer',
      params: {
        realm: 'https://auth.example.com/token',
        service: 'registry.example.com',
        scope: 'repository:a/b:pull',
      },
    });
  });

  it('reads Basic and ignores other schemes', () => {
    expect(parseChallenge('Basic realm="Registry Realm"')).to.deep.equal({
      scheme: 'basic',
      params: { realm: 'Registry Realm' },
    });
    expect(parseChallenge('Negotiate abc')).to.equal(undefined);
    expect(parseChallenge(null)).to.equal(undefined);
  });
});

describe('realmProblem', () => {
  const cases: Record<string, { realm: string; base: string; want: string | undefined }> = {
    'an https realm elsewhere': {
      realm: 'https://auth.example.com/token',
      base: 'https://r.example.com',
      want: undefined,
    },
    'the registry itself over http': {
      realm: 'http://127.0.0.1:5000/token',
      base: 'http://127.0.0.1:5000',
      want: undefined,
    },
    'an http realm for an https registry': {
      realm: 'http://auth.example.com/token',
      base: 'https://r.example.com',
      want: 'realm scheme "http" not allowed; must be https (or http for insecure registries)',
    },
    'the metadata service': {
      realm: 'https://169.254.169.254/latest',
      base: 'https://r.example.com',
      want: 'realm host "169.254.169.254" is a private or link-local address',
    },
    'another loopback port': {
      realm: 'http://127.0.0.1:9999/token',
      base: 'http://127.0.0.1:5000',
      want: 'realm host "127.0.0.1" is a private or link-local address',
    },
  };
  for (const [name, { realm, base, want }] of Object.entries(cases)) {
    it(`judges ${name}`, () => {
      expect(realmProblem(realm, base)).to.equal(want);
    });
  }
});
