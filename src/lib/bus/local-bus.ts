import { BusTimeoutError, NoResponderError, REQUEST_TIMEOUT_MS, type Bus, type Handler, type Json, type Subscription } from "./bus";

/** One process: subjects are map keys; messages are copied as JSON, as they would be on the wire. */
export class LocalBus implements Bus {
  readonly kind = "local" as const;
  readonly reachable = true;
  private readonly handlers = new Map<string, Set<Handler>>();
  /**
   * Subscriptions with a wildcard, apart: a publish scans these few, never every exact subject
   * (a node with 10,000 bots connected holds 10,000 of those, and each connect publishes).
   */
  private readonly patterns = new Map<string, Set<Handler>>();

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
    const bySubject = subject.includes("*") ? this.patterns : this.handlers;
    let handlers = bySubject.get(subject);
    if (!handlers) bySubject.set(subject, (handlers = new Set()));
    handlers.add(handler);
    let active = true;
    return {
      unsubscribe: () => {
        if (!active) return;
        active = false;
        handlers.delete(handler);
        if (handlers.size === 0 && bySubject.get(subject) === handlers) bySubject.delete(subject);
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
    if (this.patterns.size > 0) {
      const tokens = subject.split(".");
      for (const [pattern, handlers] of this.patterns) {
        const parts = pattern.split(".");
        if (parts.length === tokens.length && parts.every((part, i) => part === "*" || part === tokens[i])) found.push(...handlers);
      }
    }
    return found;
  }

  async close(): Promise<void> {
    this.handlers.clear();
    this.patterns.clear();
  }
}
