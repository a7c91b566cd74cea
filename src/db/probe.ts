import postgres from "postgres";

/** Whether this node can reach its database now, as its health check and request gate see it. */
export interface DatabaseReachability {
  /** False once a probe has gone unanswered for the probe timeout (or failed); true again at the next answer. */
  reachable(): boolean;
  /** Milliseconds since the database last answered a probe (null: not yet, or no probe needed). */
  sinceLastAnswerMs(): number | null;
  /** Told of each change (a node cut off, a node reconnected); returns the unsubscribe. */
  onChange(listener: (reachable: boolean) => void): () => void;
  stop(): Promise<void>;
}

/** How often the probe asks. */
export const PROBE_EVERY_MS = 1_000;

/** The embedded database lives in this process: it cannot be cut off from it. */
export const EMBEDDED_REACHABILITY: DatabaseReachability = {
  reachable: () => true,
  sinceLastAnswerMs: () => null,
  onChange: () => () => {},
  stop: async () => {},
};

/**
 * A bounded probe of a Postgres database: `select 1` every PROBE_EVERY_MS on a connection of its
 * own, never one of the pool's. The pool may be busy with slow but healthy work (requests then
 * queue for a connection, as they should); the probe's own connection answers as long as Postgres
 * does, so load alone never makes a node look cut off. The database is unreachable once it has
 * answered no probe for `timeoutMs`: a network path that drops everything (the socket stays open
 * and nothing comes back), a refused or reset connection. One failure alone is not enough (a
 * terminated session, a restart that is over in a second): a probe that fails has its connection
 * destroyed at once, one that hangs once it has waited `timeoutMs`, and the next probe dials a new
 * one (connect_timeout bounds that too). Reading it (`/health`, each request's gate) costs nothing: the answer is the
 * probe's last.
 */
export class DatabaseProbe implements DatabaseReachability {
  private client: postgres.Sql | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private inFlightSince: number | undefined;
  /** The last answer (the start counts as one: the migrations just ran). */
  private lastAnswerAt = performance.now();
  private answered = false;
  private lastError: unknown;
  private lastTickAt = performance.now();
  private up = true;
  private readonly listeners = new Set<(reachable: boolean) => void>();

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  start(): this {
    this.timer = setInterval(() => this.tick(), PROBE_EVERY_MS);
    this.timer.unref?.();
    this.tick();
    return this;
  }

  reachable(): boolean {
    return this.up;
  }

  sinceLastAnswerMs(): number | null {
    return this.answered ? Math.round(performance.now() - this.lastAnswerAt) : null;
  }

  onChange(listener: (reachable: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.client?.end({ timeout: 0 }).catch(() => {});
    this.client = undefined;
  }

  private tick(): void {
    const now = performance.now();
    // A tick that comes late found this process's event loop stalled (a long GC, a CPU-bound burst):
    // the probe's answer may be queued behind it. Judge at the next tick, not now.
    const late = now - this.lastTickAt > 2 * PROBE_EVERY_MS;
    this.lastTickAt = now;
    if (late) return;
    this.judge();
    if (this.inFlightSince !== undefined) {
      // Stuck in a dead path: drop the connection, so the next tick dials a new one.
      if (performance.now() - this.inFlightSince >= this.timeoutMs) this.dropConnection();
      return;
    }
    const sentAt = performance.now();
    this.inFlightSince = sentAt;
    const client = (this.client ??= postgres(this.url, {
      max: 1,
      connect_timeout: Math.max(1, Math.ceil(this.timeoutMs / 1000)),
      idle_timeout: 0,
      max_lifetime: null,
      onnotice: () => {},
      connection: { application_name: "poker health probe" },
    }));
    client`select 1`.then(
      () => {
        if (this.client !== client || this.inFlightSince !== sentAt) return;
        this.inFlightSince = undefined;
        this.lastAnswerAt = performance.now();
        this.answered = true;
        this.judge();
      },
      (error) => {
        if (this.client !== client || this.inFlightSince !== sentAt) return;
        this.lastError = error;
        this.dropConnection();
      },
    );
  }

  private dropConnection(): void {
    const client = this.client;
    this.client = undefined;
    this.inFlightSince = undefined;
    void client?.end({ timeout: 0 }).catch(() => {});
  }

  /** Unreachable once no probe was answered for timeoutMs; reachable again at the next answer. */
  private judge(): void {
    const silentMs = performance.now() - this.lastAnswerAt;
    const reachable = silentMs < this.timeoutMs;
    if (reachable === this.up) return;
    this.up = reachable;
    if (reachable) this.log("the database answers again: /health and requests are served again");
    else this.log(`the database is unreachable from this node (no answer to its probe for ${Math.round(silentMs)} ms): /health answers 503 and requests that need it 503 DATABASE_UNAVAILABLE`, this.lastError);
    for (const listener of this.listeners) listener(reachable);
  }
}
