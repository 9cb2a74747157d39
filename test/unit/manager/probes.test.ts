import { expect } from 'chai';
import { Probes, splitAddress } from '../../../src/manager/index.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

function probe(probes: Probes, url: string): { status: number; body: string } {
  const seen = { status: 0, body: '' };
  const res = {
    writeHead: (status: number) => (seen.status = status),
    end: (body: string) => (seen.body = body),
  } as unknown as ServerResponse;
  probes.handle({ url } as IncomingMessage, res);
  return seen;
}

describe('manager/Probes', () => {
  it('is live at once but not ready until every required check passes', () => {
    const probes = new Probes();
    expect(probe(probes, '/readyz').status, 'no checks declared yet').to.equal(503);
    probes.require('apiserver');
    probes.require('controllers-synced');
    expect(probe(probes, '/healthz').status).to.equal(200);
    probes.set('apiserver', true);
    const half = probe(probes, '/readyz');
    expect(half.status).to.equal(503);
    expect(half.body).to.include('[+]apiserver ok').and.include('[-]controllers-synced failed');
    probes.set('controllers-synced', true);
    expect(probe(probes, '/readyz?verbose').status).to.equal(200);
  });

  it('stops being ready when a check fails again (shutdown)', () => {
    const probes = new Probes();
    probes.set('controllers-synced', true);
    expect(probes.ready).to.equal(true);
    probes.set('controllers-synced', false);
    expect(probe(probes, '/readyz').status).to.equal(503);
  });

  it('answers 404 for other paths', () => {
    expect(probe(new Probes(), '/metrics').status).to.equal(404);
  });
});

describe('manager/splitAddress', () => {
  const cases: Record<string, { want: ReturnType<typeof splitAddress> }> = {
    ':8080': { want: { host: '0.0.0.0', port: 8080 } },
    '127.0.0.1:0': { want: { host: '127.0.0.1', port: 0 } },
    '[::1]:9090': { want: { host: '::1', port: 9090 } },
    '0': { want: undefined },
  };
  for (const [address, { want }] of Object.entries(cases)) {
    it(`parses ${address}`, () => {
      expect(splitAddress(address)).to.deep.equal(want);
    });
  }
});
