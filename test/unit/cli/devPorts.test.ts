import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
import { devAddresses, freeAddress } from '../../../src/cli/devPorts.js';

// `compositor dev` moves a metrics or probe port left at its default to a free one when something holds it. Each
// test holds a port of its own (chosen by the OS), and passes it as "the default".

async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('no port');
  return { server, port: address.port };
}

const portOf = (address: string): number => Number(address.slice(address.lastIndexOf(':') + 1));

describe('cli/dev ports', () => {
  let held: { server: Server; port: number };
  beforeEach(async () => {
    held = await holdPort();
  });
  afterEach(() => {
    held.server.close();
  });

  it('moves a default address whose port is taken to a free port on the same host', async () => {
    const taken = `127.0.0.1:${held.port}`;
    const chosen = await freeAddress(taken, taken);
    expect(chosen).to.match(/^127\.0\.0\.1:\d+$/);
    expect(portOf(chosen)).to.not.equal(held.port);
    expect(portOf(chosen)).to.be.above(0);
  });

  it('keeps a taken address the user chose, so the start names the flag', async () => {
    const taken = `127.0.0.1:${held.port}`;
    expect(await freeAddress(taken, '127.0.0.1:8080')).to.equal(taken);
  });

  it('keeps a default address that is free, and 0 (off)', async () => {
    held.server.close();
    await new Promise((resolve) => held.server.once('close', resolve));
    const free = `127.0.0.1:${held.port}`;
    expect(await freeAddress(free, free)).to.equal(free);
    expect(await freeAddress('0', '0')).to.equal('0');
  });

  it('prints the ports it uses, and which default was taken', async () => {
    const taken = `127.0.0.1:${held.port}`;
    const lines: string[] = [];
    const chosen = await devAddresses(
      { metricsBindAddress: taken, healthProbeBindAddress: '0' },
      (text) => lines.push(text),
      { metricsBindAddress: taken, healthProbeBindAddress: ':8081' },
    );
    expect(portOf(chosen.metricsBindAddress)).to.not.equal(held.port);
    expect(chosen.healthProbeBindAddress).to.equal('0');
    expect(lines).to.deep.equal([
      `compositor dev: metrics on 127.0.0.1:${portOf(chosen.metricsBindAddress)} (${taken} is taken), probes off\n`,
    ]);
  });
});
