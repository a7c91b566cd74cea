import { BusTimeoutError, NoResponderError, REQUEST_TIMEOUT_MS, type Bus, type Handler, type Json, type Subscription } from "./bus";

/** One process: subjects are map keys; messages are copied as JSON, as they would be on the wire. */
export class LocalBus implements Bus {
  readonly kind = "local" as const;
  private readonly handlers = new Map<string, Set<Handler>>();
  /** Subscriptions with a wildcard: none in most processes, so publishing stays one map lookup. */
  private patterns = 0;

  publish(subject: string, message: Json): void {
    const handlers = this.matching(subject);
    if (handlers.length === 0) return;
    const text = JSON.stringify(message);
    for (const handler of handlers) {
      queueMicrotask(() => {
        Promise.resolve()
          .then(() => handler(JSON.parse(text)))
          .catch(() => {});
      });
    }
  }

  subscribe(subject: string, handler: Handler): Subscription {
    let handlers = this.handlers.get(subject);
    if (!handlers) this.handlers.set(subject, (handlers = new Set()));
    handlers.add(handler);
    const wildcard = subject.includes("*");
    if (wildcard) this.patterns++;
    let active = true;
    return {
      unsubscribe: () => {
        if (!active) return;
        active = false;
        if (wildcard) this.patterns--;
        handlers.delete(handler);
        if (handlers.size === 0 && this.handlers.get(subject) === handlers) this.handlers.delete(subject);
      },
    };
  }

  async request(subject: string, message: Json, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Json> {
    const handler = this.matching(subject)[0];
    if (!handler) throw new NoResponderError(subject);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new BusTimeoutError(subject)), timeoutMs)));
    try {
      const reply = await Promise.race([Promise.resolve(handler(JSON.parse(JSON.stringify(message)))), timeout]);
      return JSON.parse(JSON.stringify(reply ?? {}));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Exact subscriptions, and patterns where `*` stands for one token (as NATS has them). */
  private matching(subject: string): Handler[] {
    const exact = this.handlers.get(subject);
    const found = exact ? [...exact] : [];
    if (this.patterns > 0) {
      const tokens = subject.split(".");
      for (const [pattern, handlers] of this.handlers) {
        if (!pattern.includes("*")) continue;
        const parts = pattern.split(".");
        if (parts.length === tokens.length && parts.every((part, i) => part === "*" || part === tokens[i])) found.push(...handlers);
      }
    }
    return found;
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
