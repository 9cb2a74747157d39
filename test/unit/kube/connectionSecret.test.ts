import { expect } from 'chai';
import {
  CONNECTION_SECRET_TYPE,
  ForeignSecretError,
  publishConnectionSecret,
  type CachedSecret,
  type SecretObject,
} from '../../../src/kube/index.js';
import { FakeApiServer, rejection, requestLines } from '../fakes/index.js';

// Publishing a connection Secret from an informer's copy: no read when the copy answers, the preconditions of a fresh
// read on every write, and a fresh read when the copy turns out stale.

const OWNER = { apiVersion: 'example.org/v1', kind: 'XDatabase', metadata: { name: 'db', uid: 'uid-db' } };
const PATH = '/api/v1/namespaces/conn/secrets';
const b64 = (value: string): string => Buffer.from(value).toString('base64');

function stored(data: Record<string, string>, controllerUid = OWNER.metadata.uid): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'db-conn',
      namespace: 'conn',
      ownerReferences: [
        { apiVersion: 'example.org/v1', kind: 'XDatabase', name: 'db', uid: controllerUid, controller: true },
      ],
    },
    type: CONNECTION_SECRET_TYPE,
    data,
  };
}

interface Case {
  reason: string;
  /** The Secret the API server has, if any. */
  server?: SecretObject;
  /** What the cache holds: a copy of the server's (`server`), an older one (`stale`), or none (`missing`). */
  cache?: 'server' | 'stale' | 'missing';
  want: { wrote: boolean; requests: string[]; data?: Record<string, string> };
}

const cases: Record<string, Case> = {
  'no cache: read, then create': {
    reason: 'without a cache every publish reads the Secret first, as before',
    want: { wrote: true, requests: [`GET ${PATH}/db-conn`, `POST ${PATH}`], data: { user: b64('admin') } },
  },
  'cached copy holds every key': {
    reason: 'a synced copy with every key settles the publish without a request',
    server: stored({ user: b64('admin') }),
    cache: 'server',
    want: { wrote: false, requests: [] },
  },
  'cached copy lacks a key': {
    reason: 'the update is sent at once, conditional on the copy',
    server: stored({ other: b64('x') }),
    cache: 'server',
    want: { wrote: true, requests: [`PUT ${PATH}/db-conn`], data: { other: b64('x'), user: b64('admin') } },
  },
  'cached copy is stale': {
    reason: 'an update refused as a conflict is decided again on a fresh read',
    server: stored({ other: b64('newer') }),
    cache: 'stale',
    want: {
      wrote: true,
      requests: [`PUT ${PATH}/db-conn`, `GET ${PATH}/db-conn`, `PUT ${PATH}/db-conn`],
      data: { other: b64('newer'), user: b64('admin') },
    },
  },
  'synced cache has none, none exists': {
    reason: 'the create is sent at once',
    cache: 'missing',
    want: { wrote: true, requests: [`POST ${PATH}`], data: { user: b64('admin') } },
  },
  'synced cache has none, one exists': {
    reason: 'a create refused because the Secret exists (its watch event not in yet) reads it, and finds nothing to do',
    server: stored({ user: b64('admin') }),
    cache: 'missing',
    want: { wrote: false, requests: [`POST ${PATH}`, `GET ${PATH}/db-conn`] },
  },
};

/** What the cache holds in each case; a stale copy is an earlier version, with other data. */
function cacheOf(cache: Case['cache'], current: SecretObject | undefined): CachedSecret | undefined {
  if (cache === undefined) return undefined;
  if (cache === 'missing' || !current) return { found: undefined };
  if (cache === 'server') return { found: current };
  return {
    found: { ...current, metadata: { ...current.metadata, resourceVersion: '1' }, data: { other: b64('old') } },
  };
}

describe('kube/publishConnectionSecret from a cache', () => {
  for (const [name, { reason, server, cache, want }] of Object.entries(cases)) {
    it(name, async () => {
      const api = new FakeApiServer();
      const current = server ? api.put(server) : undefined;
      const cached = cacheOf(cache, current);
      api.requests.length = 0;
      const wrote = await publishConnectionSecret(
        api.client,
        { namespace: 'conn', name: 'db-conn', owner: OWNER, data: { user: b64('admin') } },
        undefined,
        cached,
      );
      expect(wrote, reason).to.equal(want.wrote);
      expect(requestLines(api.requests), reason).to.deep.equal(want.requests);
      if (want.data)
        expect(api.get<SecretObject>('v1', 'Secret', 'db-conn', 'conn')?.data, reason).to.deep.equal(want.data);
    });
  }

  it('reports a Secret another object controls only once a fresh read confirms it', async () => {
    const api = new FakeApiServer();
    const foreign = api.put(stored({ user: b64('admin') }, 'uid-other'));
    api.requests.length = 0;
    const err = await rejection(
      publishConnectionSecret(
        api.client,
        { namespace: 'conn', name: 'db-conn', owner: OWNER, data: { user: b64('admin') } },
        undefined,
        { found: foreign },
      ),
    );
    expect(err).to.be.instanceOf(ForeignSecretError);
    expect(requestLines(api.requests)).to.deep.equal([`GET ${PATH}/db-conn`]);
  });
});
