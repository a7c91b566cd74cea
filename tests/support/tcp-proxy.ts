import type { Socket, TCPSocketListener } from "bun";

/** Bytes a socket has not taken yet (it takes what fits; `drain` says when it takes more). */
const unsent = new WeakMap<Socket<any>, Buffer[]>();

function writeAll(socket: Socket<any>, chunk: Buffer): void {
  const queue = unsent.get(socket) ?? [];
  unsent.set(socket, queue);
  queue.push(chunk);
  flush(socket);
}

function flush(socket: Socket<any>): void {
  const queue = unsent.get(socket);
  while (queue && queue.length > 0) {
    const written = socket.write(queue[0]);
    if (written < 0) return;
    if (written < queue[0].length) {
      queue[0] = queue[0].subarray(written);
      return;
    }
    queue.shift();
  }
}

/**
 * A TCP proxy on a loopback port in front of another address (a node's database), which a test
 * can blackhole: every byte either way is then held back, connections stay open and nothing is
 * refused, as when a network path silently drops packets. `restore` lets the held bytes through.
 */
export class TcpProxy {
  private blackholed = false;
  private readonly held: Array<() => void> = [];
  private readonly sockets = new Set<Socket<any>>();

  private constructor(private readonly listener: TCPSocketListener<any>) {}

  get port(): number {
    return this.listener.port;
  }

  static start(targetHost: string, targetPort: number): TcpProxy {
    let proxy!: TcpProxy;
    const listener = Bun.listen<{ upstream: Promise<Socket<any>> }>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(client) {
          proxy.sockets.add(client);
          client.data = {
            upstream: Bun.connect({
              hostname: targetHost,
              port: targetPort,
              socket: {
                data: (_server, chunk) => {
                  const copy = Buffer.from(chunk);
                  proxy.pass(() => writeAll(client, copy));
                },
                drain: (server) => flush(server),
                close: () => void client.end(),
                error: () => void client.end(),
              },
            }).then((server) => (proxy.sockets.add(server), server)),
          };
        },
        data(client, chunk) {
          const copy = Buffer.from(chunk);
          proxy.pass(() => void client.data.upstream.then((server) => writeAll(server, copy)));
        },
        drain: (client) => flush(client),
        close(client) {
          void client.data.upstream.then((server) => server.end(), () => {});
        },
        error(client) {
          void client.data.upstream.then((server) => server.end(), () => {});
        },
      },
    });
    proxy = new TcpProxy(listener);
    return proxy;
  }

  blackhole(): void {
    this.blackholed = true;
  }

  restore(): void {
    this.blackholed = false;
    for (const send of this.held.splice(0)) send();
  }

  stop(): void {
    for (const socket of this.sockets) socket.end();
    this.listener.stop(true);
  }

  private pass(send: () => void): void {
    if (this.blackholed) this.held.push(send);
    else send();
  }
}
