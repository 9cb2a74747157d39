import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookServer } from '../../../src/managed/index.js';
import { generateCa, issueLeaf } from '../../../src/packages/index.js';

// A provider's webhook server on its mounted certificate: admission reviews answered per path, verified by a client
// trusting the CA as the API server does.
function post(port: number, ca: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path, ca, servername: 'provider-nop.crossplane-system.svc' },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text });
        });
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

describe('managed/WebhookServer', function () {
  // Two RSA keys are generated.
  this.timeout(20_000);
  let dir = '';
  let ca = '';
  let server: WebhookServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-server-'));
    const root = await generateCa(new Date());
    const leaf = await issueLeaf(root, ['provider-nop.crossplane-system.svc'], 'server', new Date());
    await writeFile(join(dir, 'tls.crt'), leaf.cert);
    await writeFile(join(dir, 'tls.key'), leaf.key);
    ca = root.cert;
    server = new WebhookServer({
      certDir: dir,
      host: '127.0.0.1',
      port: 0,
      checks: {
        '/allow': () => undefined,
        '/refuse': (req) => (req.operation === 'DELETE' ? 'not today' : undefined),
      },
    });
    await server.start();
  });

  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const review = (operation: string): unknown => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u-1', operation },
  });

  it('admits with the request uid, over TLS with the mounted certificate', async () => {
    const res = await post(server.port() ?? 0, ca, '/allow', review('CREATE'));
    expect(res.status).to.equal(200);
    expect(JSON.parse(res.body)).to.deep.equal({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true },
    });
  });

  it("refuses with the check's message", async () => {
    const res = await post(server.port() ?? 0, ca, '/refuse', review('DELETE'));
    expect((JSON.parse(res.body) as { response: unknown }).response).to.deep.equal({
      uid: 'u-1',
      allowed: false,
      status: { code: 403, message: 'not today' },
    });
  });

  it('answers 404 for a path it has no check for, and 400 for a body that is not a review', async () => {
    expect((await post(server.port() ?? 0, ca, '/other', review('CREATE'))).status).to.equal(404);
    expect((await post(server.port() ?? 0, ca, '/allow', 'not json')).status).to.equal(400);
    expect((await post(server.port() ?? 0, ca, '/allow', '"a string"')).status).to.equal(400);
  });

  it('cannot start without the certificate files, and says which', async () => {
    const missing = new WebhookServer({ certDir: join(dir, 'none'), host: '127.0.0.1', port: 0, checks: {} });
    const err = await missing.start().catch((e: unknown) => e);
    expect(String(err)).to.include(`cannot read webhook TLS certificate ${join(dir, 'none', 'tls.crt')}`);
  });
});
