import { createServer } from 'node:net';
import { splitAddress } from '../manager/index.js';
import { flagDefaults, type StartConfig } from './flags.js';

// `compositor dev` runs beside whatever else a developer has running, which often holds 8080 or 8081 already. A port
// left at its default moves to a free one instead of failing the start; a port the user chose is kept, so a clash
// there still stops the start naming the flag.

type Addresses = Pick<StartConfig, 'metricsBindAddress' | 'healthProbeBindAddress'>;

/** Listens on host:port and closes again; resolves to the port bound (the OS's choice for port 0), or undefined. */
function tryListen(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(undefined);
    });
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === 'object' && address !== null ? address.port : undefined);
      });
    });
  });
}

/**
 * `address` when it can be listened on or is not `fallbackFrom` (the flag's default); otherwise the same host with a
 * port that is free now.
 */
export async function freeAddress(address: string, fallbackFrom: string): Promise<string> {
  const target = splitAddress(address);
  if (!target || address !== fallbackFrom || (await tryListen(target.host, target.port)) !== undefined) return address;
  const port = await tryListen(target.host, 0);
  if (port === undefined) return address;
  return `${address.slice(0, address.lastIndexOf(':'))}:${port}`;
}

/** "on host:port" (localhost for every address), or "off" for 0. */
function where(address: string): string {
  const target = splitAddress(address);
  if (!target) return 'off';
  const host = target.host === '0.0.0.0' || target.host === '::' ? 'localhost' : target.host;
  return `on ${host.includes(':') ? `[${host}]` : host}:${target.port}`;
}

/**
 * The metrics and probe addresses `compositor dev` listens on, each default one moved to a free port when taken, and
 * one line on `write` saying where they are.
 */
export async function devAddresses(
  config: Addresses,
  write: (text: string) => void,
  defaults: Addresses = flagDefaults() as Addresses,
): Promise<Addresses> {
  const chosen = {
    metricsBindAddress: await freeAddress(config.metricsBindAddress, defaults.metricsBindAddress),
    healthProbeBindAddress: await freeAddress(config.healthProbeBindAddress, defaults.healthProbeBindAddress),
  };
  const said = (key: keyof Addresses): string =>
    where(chosen[key]) + (chosen[key] === config[key] ? '' : ` (${config[key]} is taken)`);
  write(`compositor dev: metrics ${said('metricsBindAddress')}, probes ${said('healthProbeBindAddress')}\n`);
  return chosen;
}
