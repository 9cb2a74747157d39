// A TCP proxy that adds network latency in front of the local API server: every chunk is forwarded `oneWayMs` after
// it arrived, in each direction, so a request/response pair costs 2 x oneWayMs more, as with an API server across
// a network (a managed control plane, another zone). Bytes keep their order: chunks of one direction are delayed
// by the same amount and Node fires equal timers in the order they were set.
import { connect, createServer, type Server, type Socket } from 'node:net';

export class LatencyProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private listenPort = 0;

  constructor(
    private readonly target: { host: string; port: number },
    private readonly oneWayMs: number,
  ) {}

  get port(): number {
    return this.listenPort;
  }

  async start(): Promise<this> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      this.delay(client, upstream);
      this.delay(upstream, client);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const address = server.address();
    if (address === null || typeof address !== 'object') throw new Error('proxy has no port');
    this.listenPort = address.port;
    return this;
  }

  /** Forwards `from` to `to` late; an end or error on either side ends both, late too, so no byte is cut off. */
  private delay(from: Socket, to: Socket): void {
    this.sockets.add(from);
    from.once('close', () => this.sockets.delete(from));
    from.on('data', (chunk) => {
      setTimeout(() => to.write(chunk), this.oneWayMs);
    });
    from.once('end', () => setTimeout(() => to.end(), this.oneWayMs));
    from.once('error', () => to.destroy());
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
