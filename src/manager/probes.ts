import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Liveness and readiness as Kubernetes probes see them. /healthz answers while the event loop runs; /readyz only
 * once every readiness check has passed (API server reachable, caches synced, leadership known) and stops passing
 * as soon as shutdown begins, so a Service stops routing before work stops.
 */
export class Probes {
  private readonly checks = new Map<string, boolean>();

  /** Declares a readiness check that is failing until marked passing. */
  require(name: string): void {
    if (!this.checks.has(name)) this.checks.set(name, false);
  }

  set(name: string, passing: boolean): void {
    this.checks.set(name, passing);
  }

  get ready(): boolean {
    return this.checks.size > 0 && [...this.checks.values()].every(Boolean);
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://probe').pathname;
    if (path === '/healthz' || path === '/livez') {
      reply(res, 200, 'ok');
    } else if (path === '/readyz') {
      const lines = [...this.checks].map(
        ([name, passing]) => `[${passing ? '+' : '-'}]${name} ${passing ? 'ok' : 'failed'}`,
      );
      reply(res, this.ready ? 200 : 503, `${lines.join('\n')}\nreadyz check ${this.ready ? 'passed' : 'failed'}`);
    } else {
      reply(res, 404, 'not found');
    }
  };
}

function reply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${body}\n`);
}
