// A TCP proxy in front of the API server, so a benchmark can cut every connection through it: either closing both
// ends cleanly ("close": the client sees its stream end, no error) or silently ("blackhole": the sockets stay open
// and nothing more is forwarded, as a dead NAT entry or a stuck load balancer does; the client sees nothing at all).
import { connect, createServer, type Server, type Socket } from 'node:net';

export type CutMode = 'close' | 'blackhole';

export class TcpProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  /** Connections cut with "blackhole", held open until release() or close(). */
  private readonly held: Socket[] = [];
  private readonly enders = new WeakMap<[Socket, Socket], () => void>();
  /** Every socket still open, whatever state it is in, so close() leaves none behind. */
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private listenPort = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  get port(): number {
    return this.listenPort;
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.pairs.size;
  }

  async start(): Promise<this> {
    const server = createServer((client) => {
      this.forward(client);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const address = server.address();
    if (address === null || typeof address !== 'object') throw new Error('proxy has no port');
    this.listenPort = address.port;
    return this;
  }

  private forward(client: Socket): void {
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    }
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = (): void => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    this.enders.set(pair, end);
  }

  /** Cuts every connection open now; connections made afterwards are forwarded as usual. Returns how many. */
  cut(mode: CutMode): number {
    const pairs = [...this.pairs];
    this.pairs.clear();
    for (const pair of pairs) {
      const [client, upstream] = pair;
      if (mode === 'close') {
        client.end();
        upstream.end();
        continue;
      }
      // Silent: nothing more is forwarded, and neither end learns that the other one closed.
      const end = this.enders.get(pair);
      if (end) for (const socket of pair) socket.off('close', end).off('error', end);
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
      client.on('error', () => undefined);
      upstream.on('error', () => undefined);
      this.held.push(client, upstream);
    }
    return pairs.length;
  }

  /** Destroys the blackholed connections (the client's side sees a reset, if it still listens). */
  release(): void {
    for (const socket of this.held.splice(0)) socket.destroy();
  }

  /** Destroys every socket and stops listening (without waiting longer than 2 s for the server to close). */
  async close(): Promise<void> {
    for (const socket of [...this.sockets, ...this.held.splice(0)]) socket.destroy();
    this.sockets.clear();
    this.pairs.clear();
    const server = this.server;
    if (!server) return;
    await Promise.race([
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
      new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref()),
    ]);
  }
}
