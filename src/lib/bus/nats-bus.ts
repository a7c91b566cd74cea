import { connect, RequestError, TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import { BusTimeoutError, NoResponderError, REQUEST_TIMEOUT_MS, type Bus, type Handler, type Json, type Subscription } from "./bus";

/** Many nodes: NATS core subjects (at-most-once; Postgres stays the system of record). */
export class NatsBus implements Bus {
  readonly kind = "nats" as const;

  /** Cut off from the NATS server: requests fail at once instead of waiting out their timeout. */
  private disconnected = false;

  get reachable(): boolean {
    return !this.disconnected;
  }

  private constructor(
    private readonly connection: NatsConnection,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect") {
          this.disconnected = true;
          log("lost the NATS server (reconnecting): tables hosted elsewhere are out of reach");
        } else if (status.type === "reconnect") {
          this.disconnected = false;
          log("NATS server reached again");
        }
      }
    })().catch(() => {});
  }

  static async connect(url: string, name: string, log: (message: string, error?: unknown) => void): Promise<NatsBus> {
    const connection = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    return new NatsBus(connection, log);
  }

  publish(subject: string, message: Json): void {
    try {
      this.connection.publish(subject, JSON.stringify(message));
    } catch (error) {
      this.log(`publish to ${subject} failed`, error);
    }
  }

  subscribe(subject: string, handler: Handler): Subscription {
    const subscription = this.connection.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return this.log(`subscription ${subject} failed`, error);
        let message: Json;
        try {
          message = msg.json<Json>();
        } catch {
          return;
        }
        Promise.resolve()
          .then(() => handler(message))
          .then(
            (reply) => {
              if (msg.reply) msg.respond(JSON.stringify(reply ?? {}));
            },
            (failure) => {
              this.log(`handler for ${subject} failed`, failure);
              if (msg.reply) msg.respond(JSON.stringify({ error: { status: 500, code: "INTERNAL", message: "The node hosting this failed" } }));
            },
          );
      },
    });
    return { unsubscribe: () => subscription.unsubscribe() };
  }

  async request(subject: string, message: Json, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Json> {
    if (this.disconnected) throw new NoResponderError(subject);
    try {
      const reply = await this.connection.request(subject, JSON.stringify(message), { timeout: timeoutMs });
      return reply.json<Json>();
    } catch (error) {
      if (error instanceof RequestError && error.isNoResponders()) throw new NoResponderError(subject);
      if (error instanceof TimeoutError || (error as Error)?.cause instanceof TimeoutError) throw new BusTimeoutError(subject);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.connection.drain().catch(() => this.connection.close());
  }
}
