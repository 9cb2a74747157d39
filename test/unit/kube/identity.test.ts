import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { packageRoot } from '../../../src/apis/index.js';
import { compositorUserAgent, FIELD_MANAGERS, KubeClient, userAgent, withUserAgent } from '../../../src/kube/index.js';

const VERSION = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/** A local server that answers every request with an empty JSON object and keeps each request's headers. */
async function recordingServer(): Promise<{ server: Server; port: number; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('no port');
  return { server, port: address.port, headers };
}

function kubeConfigFor(port: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('kube/identity', () => {
  it('names compositor, its version, platform and architecture in the User-Agent', () => {
    expect(userAgent('1.2.3', 'linux', 'arm64')).to.equal('compositor/1.2.3 (linux/arm64)');
    expect(compositorUserAgent()).to.equal(`compositor/${VERSION} (${process.platform}/${process.arch})`);
  });

  it('keeps every field manager a fixed name of the compositor family, without the version', () => {
    // A changed name orphans the fields the old one applied (identity.ts): this list changes only deliberately.
    expect(FIELD_MANAGERS).to.deep.equal({
      rbac: 'compositor/rbac',
      managed: 'compositor/managed',
      dev: 'compositor/dev',
    });
    for (const name of Object.values(FIELD_MANAGERS)) {
      expect(name).to.match(/^compositor(\/[a-z-]+)?$/);
      expect(name).to.not.include(VERSION);
    }
  });

  it('sends the User-Agent with every request, so non-apply writes are recorded under "compositor"', async () => {
    const { server, port, headers } = await recordingServer();
    try {
      await new KubeClient(kubeConfigFor(port)).request('PATCH', '/api/v1/namespaces/a/configmaps/b', { body: {} });
      expect(headers[0]?.['user-agent']).to.equal(compositorUserAgent());
      expect(headers[0]?.['user-agent']?.split('/')[0]).to.equal('compositor');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("adds it to client-node's watch requests too, keeping their authentication", async () => {
    const { server, port, headers } = await recordingServer();
    try {
      const done = new Promise<void>((resolve, reject) => {
        new Watch(withUserAgent(kubeConfigFor(port), () => 'compositor/test (os/cpu)'))
          .watch(
            '/api/v1/configmaps',
            {},
            () => undefined,
            () => {
              resolve();
            },
          )
          .catch(reject);
      });
      await done;
      expect(headers[0]?.['user-agent']).to.equal('compositor/test (os/cpu)');
      expect(headers[0]?.authorization).to.equal('Bearer t');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
