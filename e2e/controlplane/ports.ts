import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 at the time of asking (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('cannot find a free port'));
      });
    });
  });
}
