// A provider's webhook server, as controller-runtime's serves a Crossplane provider's: HTTPS with the server
// certificate its package runtime mounts (TLS_SERVER_CERTS_DIR: tls.crt, tls.key), answering the admission reviews of
// the webhook configurations its package installs. A provider written on this runtime that validates nothing admits
// every object; the API server reaches it through the Service its package manager points the webhooks at.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Runnable } from '../lifecycle/index.js';

/** Accepts or refuses one admission request; undefined admits it. */
export type AdmissionCheck = (request: { object?: unknown; operation?: string }) => string | undefined;

export interface WebhookServerOptions {
  /** The directory holding tls.crt and tls.key. */
  certDir: string;
  host: string;
  port: number;
  /** The admission check of each path; a path not listed is 404. */
  checks: Record<string, AdmissionCheck>;
}

const MAX_BODY = 3 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) req.destroy(new Error('admission review too large'));
    });
    req.on('end', () => {
      resolve(body);
    });
    req.on('error', reject);
  });
}

async function review(check: AdmissionCheck, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const parsed = JSON.parse(await readBody(req)) as {
    apiVersion?: string;
    request?: { uid?: string; object?: unknown; operation?: string } | null;
  } | null;
  const request = parsed?.request;
  if (typeof request !== 'object' || request === null) throw new Error('not an AdmissionReview');
  const refusal = check(request);
  const response = {
    uid: request.uid ?? '',
    allowed: refusal === undefined,
    ...(refusal === undefined ? {} : { status: { code: 403, message: refusal } }),
  };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ apiVersion: parsed?.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response }),
  );
}

/**
 * @example
 * const webhooks = new WebhookServer({ certDir: '/tls/server', host: '0.0.0.0', port: 9443, checks: { '/validate': () => undefined } });
 * await webhooks.start(); // listening, webhooks.port() bound
 */
async function readCertFile(certDir: string, file: string): Promise<string> {
  try {
    return await readFile(join(certDir, file), 'utf8');
  } catch (err) {
    throw new Error(`cannot read webhook TLS certificate ${join(certDir, file)}`, { cause: err });
  }
}

export class WebhookServer implements Runnable {
  readonly name = 'webhook-server';
  private server: Server | undefined;

  constructor(private readonly options: WebhookServerOptions) {}

  /** The port bound (the one asked for, or the one chosen for port 0); undefined before start. */
  port(): number | undefined {
    return (this.server?.address() as AddressInfo | null | undefined)?.port;
  }

  /** Reads the certificate and listens. */
  async start(): Promise<void> {
    const { certDir, host, port, checks } = this.options;
    // One after the other, so that when both are missing the error always names the certificate first.
    const cert = await readCertFile(certDir, 'tls.crt');
    const key = await readCertFile(certDir, 'tls.key');
    const server = createServer({ cert, key }, (req, res) => {
      const check = checks[(req.url ?? '').split('?')[0] ?? ''];
      if (req.method !== 'POST' || check === undefined) {
        res.writeHead(404).end();
        return;
      }
      review(check, req, res).catch((err: unknown) => {
        res.writeHead(400).end(`cannot read admission review: ${String(err)}`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        reject(new Error(`cannot listen on ${host}:${port}: ${err.message}`, { cause: err }));
      });
      server.listen(port, host, resolve);
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  }
}
