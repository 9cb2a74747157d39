import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  /** The port actually bound (useful with port 0 in tests). */
  port: number;
  close(): Promise<void>;
}

/** Listens on a Go-style bind address (":8080", "127.0.0.1:0"); "0" disables the server and resolves undefined. */
export async function listen(address: string, handler: RequestListener): Promise<RunningServer | undefined> {
  const target = splitAddress(address);
  if (!target) return undefined;
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      reject(new Error(`cannot listen on ${address}: ${err.message}`, { cause: err }));
    });
    server.listen(target.port, target.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

/** Parses a Go-style listen address into host and port; "0" disables the listener (returns undefined). */
export function splitAddress(address: string): { host: string; port: number } | undefined {
  if (address === '0') return undefined;
  const index = address.lastIndexOf(':');
  const host = address.slice(0, index).replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(address.slice(index + 1)) };
}
