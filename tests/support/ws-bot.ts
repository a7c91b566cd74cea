/** A scripted remote bot over a real WebSocket: records every message, answers action requests. */
export type Message = { type: string } & Record<string, any>;
export type Policy = (request: Message, bot: WsBot) => Record<string, unknown> | null | "silent";

export class WsBot {
  readonly messages: Message[] = [];
  /** performance.now() at each message's arrival, index for index with `messages`. */
  readonly receivedAt: number[] = [];
  private socket!: WebSocket;
  private waiters: Array<{ predicate: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  private closeWaiters: Array<() => void> = [];
  closed = false;

  constructor(
    private url: string,
    private readonly apiKey: string,
    public policy: Policy = (request) => ({ action: request.legalActions.includes("check") ? "check" : "call" }),
    private readonly via: "header" | "query" = "header",
  ) {}

  /** Opens (or re-opens) its socket; `url`: another server from now on (a restarted or another node). */
  async connect(url?: string): Promise<this> {
    if (url) this.url = url;
    const wsUrl = this.url.replace(/^http/, "ws") + "/api/bots/connect";
    this.socket =
      this.via === "header"
        ? new WebSocket(wsUrl, { headers: { authorization: `Bearer ${this.apiKey}` } } as any)
        : new WebSocket(`${wsUrl}?apiKey=${encodeURIComponent(this.apiKey)}`);
    this.closed = false;
    const since = this.messages.length;
    this.socket.onmessage = (event) => this.onMessage(JSON.parse(String(event.data)));
    this.socket.onclose = () => {
      this.closed = true;
      for (const resolve of this.closeWaiters.splice(0)) resolve();
    };
    await this.next((m) => m.type === "welcome", 20_000, since);
    return this;
  }

  send(message: Record<string, unknown> | string): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  disconnect(): void {
    this.socket.close();
  }

  /** Resolves with the first message (already received or future) matching the predicate. */
  next(predicate: (m: Message) => boolean, timeoutMs = 20_000, since = 0): Promise<Message> {
    const seen = this.messages.slice(since).find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a message; last: ${JSON.stringify(this.messages.at(-1))}`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Resolves once the socket is closed, by either side (at once if it is). */
  untilClosed(timeoutMs = 20_000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for the socket to close; last: ${JSON.stringify(this.messages.at(-1))}`)), timeoutMs);
      this.closeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves with the `count`th message (already received or future) matching the predicate. */
  nth(count: number, predicate: (m: Message) => boolean, timeoutMs = 20_000, since = 0): Promise<Message> {
    let seen = 0;
    return this.next((m) => predicate(m) && ++seen === count, timeoutMs, since);
  }

  ofType(type: string): Message[] {
    return this.messages.filter((m) => m.type === type);
  }

  private onMessage(message: Message): void {
    this.messages.push(message);
    this.receivedAt.push(performance.now());
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate(message)) return true;
      w.resolve(message);
      return false;
    });
    if (message.type === "action_request") {
      const answer = this.policy(message, this);
      if (answer && answer !== "silent") this.send({ type: "action", requestId: message.requestId, ...answer });
    }
  }
}
