/**
 * Running database work again after a failure that says nothing about the work itself: a
 * deadlock/serialization victim (rolled back), or a lost connection (the backend was terminated,
 * the server restarted, the network dropped). A lost connection may have hidden a COMMIT that
 * happened, so work retried this way must be idempotent: it is told which attempt it is.
 */

/** Deadlock detected, serialization failure: Postgres rolled the transaction back. */
const CONFLICT = new Set(["40P01", "40001"]);

/**
 * The connection, not the statement, failed. (Not CONNECTION_ENDED / CONNECTION_DESTROYED:
 * postgres.js raises those only after we closed the pool ourselves, at shutdown.)
 */
const CONNECTION = new Set([
  "57P01", // admin_shutdown (pg_terminate_backend, a fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, recovering)
  "08000", "08001", "08003", "08004", "08006", // connection exceptions
  "CONNECTION_CLOSED", // postgres.js: the socket closed under a query
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
]);

type Coded = { code?: unknown; errno?: unknown; cause?: unknown };

/** The first code in the chain of causes (Drizzle wraps the driver's error) found in `codes`. */
function codeIn(error: unknown, codes: Set<string>): string | undefined {
  for (let e = error as Coded | undefined, depth = 0; e && depth < 8; e = e.cause as Coded | undefined, depth++) {
    for (const code of [e.code, e.errno]) if (typeof code === "string" && codes.has(code)) return code;
  }
  return undefined;
}

export const isConflict = (error: unknown) => codeIn(error, CONFLICT) !== undefined;
export const isConnectionLost = (error: unknown) => codeIn(error, CONNECTION) !== undefined;
/** The code that made an error retryable, for logs. */
export const transientCode = (error: unknown) => codeIn(error, CONNECTION) ?? codeIn(error, CONFLICT);

/**
 * Told of every retry in this process (metrics count them). Per process, not per app: the
 * retries run below any one app's reach, and production runs one app per process.
 */
const retryObservers = new Set<(cause: "conflict" | "connection") => void>();

export function observeRetries(observer: (cause: "conflict" | "connection") => void): () => void {
  retryObservers.add(observer);
  return () => retryObservers.delete(observer);
}

export function noteRetry(cause: "conflict" | "connection"): void {
  for (const observer of retryObservers) observer(cause);
}

export interface RetryOptions {
  /** Give up once this long has passed since the first attempt (default 60 s). */
  budgetMs?: number;
  /**
   * Run again after a lost connection too (default). Work that is not idempotent (a buy-in: a lost
   * COMMIT answer may hide one that happened) says false: only deadlock and serialization victims,
   * which Postgres rolled back, are run again.
   */
  afterLostConnection?: boolean;
  /** Told about each failure that will be retried. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * The one retry policy: runs `work(attempt)` until it succeeds, retrying conflicts (up to 4
 * attempts, quickly) and lost connections (exponential backoff from 50 ms to 2 s, with jitter,
 * within the budget). Any other error, or one past its limit, is thrown.
 */
export async function retryTransient<T>(work: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const deadline = performance.now() + (options.budgetMs ?? 60_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      let delayMs: number;
      if (isConnectionLost(error) && options.afterLostConnection !== false) delayMs = Math.min(2_000, 50 * 2 ** (attempt - 1)) * (0.5 + Math.random());
      else if (isConflict(error) && attempt < 4) delayMs = attempt * 5 + Math.random() * 10;
      else throw error;
      if (performance.now() + delayMs > deadline) throw error;
      noteRetry(isConnectionLost(error) ? "connection" : "conflict");
      options.onRetry?.(error, attempt, delayMs);
      await Bun.sleep(delayMs);
    }
  }
}
