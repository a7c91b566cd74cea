/**
 * Idempotency-Key, with Stripe's semantics, on every write that creates something or moves money:
 * the first answer to a developer's keyed request is stored in Postgres (so it holds across
 * restarts and nodes) and replayed for 24 h to a retry with the same key and the same request; the
 * same key with a different request is a 422, and one still being answered a 409. Secrets in an
 * answer (api keys) are not kept: a replay carries them as null.
 */
import { and, eq, lt, sql } from "drizzle-orm";
import { t } from "elysia";
import type { Db } from "../db";
import { queryRows } from "../db";
import { idempotencyKeys } from "../db/schema";
import type { Clock } from "../lib/clock";
import { AppError } from "../lib/errors";
import { sha256Hex } from "../lib/ids";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A first request still unanswered after this long died with its process: a retry may run it
 * again. (Every write here is guarded on its own: a second join finds the bot seated, a second
 * faucet claim the cooldown, so a re-run never moves money twice.)
 */
export const ABANDONED_AFTER_MS = 60_000;

export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(
    t.String({
      minLength: 1,
      maxLength: 255,
      pattern: "^[\\x21-\\x7E]+$",
      description:
        "Any unique string (a UUID), at most 255 visible ASCII characters. A retry with the same key and the same request within 24 h gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; an api key in the first answer is not kept, so a replay carries `apiKey: null`; the same key with another method, path or body is 422 IDEMPOTENCY_KEY_REUSED; while the first is still being answered, 409 IDEMPOTENCY_KEY_IN_USE. Keys are per developer.",
    }),
  ),
});

interface Exchange {
  developerId: string;
  request: Request;
  body?: unknown;
  headers: Record<string, string | undefined>;
  set: { status?: number | string };
}

/**
 * Fields that carry a secret (a bot's api key, a developer token): never kept in the replay store,
 * which holds answers in plain JSON for 24 h. A replay answers them as null: the secret is shown
 * once, and a key may have been rotated away since (rotate again if it was lost).
 */
const SECRET_FIELDS = ["apiKey", "token"] as const;

/** The answer as the replay store may keep it: every secret field nulled. */
export function withoutSecrets(result: unknown): unknown {
  if (!result || typeof result !== "object" || Array.isArray(result)) return result;
  const kept: Record<string, unknown> = { ...(result as Record<string, unknown>) };
  for (const field of SECRET_FIELDS) if (kept[field] !== undefined) kept[field] = null;
  return kept;
}

/** JSON with object keys sorted: the same body however its fields were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export class IdempotencyKeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `work` once per (developer, Idempotency-Key); without a key, simply runs it. A replay is
   * the stored answer as a Response, which Elysia sends as it is (typed as the route's answer).
   */
  async once<T>(exchange: Exchange, work: () => Promise<T>): Promise<T> {
    const key = exchange.headers["idempotency-key"];
    if (key === undefined) return work();
    const { developerId } = exchange;
    const url = new URL(exchange.request.url);
    const fingerprint = sha256Hex(`${exchange.request.method} ${url.pathname}\n${canonicalJson(exchange.body ?? null)}`);
    const claimedAt = new Date(this.clock.now());
    const claimed = await this.claim(developerId, key, fingerprint, claimedAt);
    if (!claimed) return (await this.replay(developerId, key, fingerprint)) as unknown as T;
    let result: T;
    try {
      result = await work();
    } catch (error) {
      if (error instanceof AppError && error.status < 500) await this.store(developerId, key, claimedAt, error.status, JSON.stringify(error.toBody()));
      else await this.release(developerId, key, claimedAt);
      throw error;
    }
    await this.store(developerId, key, claimedAt, typeof exchange.set.status === "number" ? exchange.set.status : 200, JSON.stringify(withoutSecrets(result)));
    return result;
  }

  /** Keys past their 24 h: forgotten (the claim treats them as new anyway; this keeps the table small). */
  async sweep(): Promise<number> {
    const gone = await this.db
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.createdAt, new Date(this.clock.now() - IDEMPOTENCY_WINDOW_MS)))
      .returning({ key: idempotencyKeys.key });
    return gone.length;
  }

  /** The key is ours when it is new, past its window, or abandoned by a dead first request for the same thing. */
  private async claim(developerId: string, key: string, fingerprint: string, at: Date): Promise<boolean> {
    const expired = new Date(at.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
    const abandoned = new Date(at.getTime() - ABANDONED_AFTER_MS).toISOString();
    const rows = await queryRows(
      this.db,
      sql`insert into idempotency_keys (developer_id, key, fingerprint, status, body, created_at)
          values (${developerId}, ${key}, ${fingerprint}, null, null, ${at.toISOString()}::timestamptz)
          on conflict (developer_id, key) do update
            set fingerprint = excluded.fingerprint, status = null, body = null, created_at = excluded.created_at
            where idempotency_keys.created_at < ${expired}::timestamptz
               or (idempotency_keys.status is null and idempotency_keys.fingerprint = excluded.fingerprint and idempotency_keys.created_at < ${abandoned}::timestamptz)
          returning key`,
    );
    return rows.length > 0;
  }

  private async replay(developerId: string, key: string, fingerprint: string): Promise<Response> {
    const [row] = await this.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.developerId, developerId), eq(idempotencyKeys.key, key)));
    if (!row) throw new AppError(409, "IDEMPOTENCY_KEY_IN_USE", "This Idempotency-Key was just released: retry", undefined, { "Retry-After": "1" });
    if (row.fingerprint !== fingerprint) {
      throw new AppError(422, "IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request (method, path or body): use a new key", { field: "Idempotency-Key" });
    }
    if (row.status === null || row.body === null) {
      throw new AppError(409, "IDEMPOTENCY_KEY_IN_USE", "A request with this Idempotency-Key is still being answered: retry shortly", undefined, { "Retry-After": "1" });
    }
    return new Response(row.body, { status: row.status, headers: { "content-type": "application/json", "idempotent-replayed": "true" } });
  }

  private async store(developerId: string, key: string, claimedAt: Date, status: number, body: string): Promise<void> {
    await this.db
      .update(idempotencyKeys)
      .set({ status, body })
      .where(and(eq(idempotencyKeys.developerId, developerId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.createdAt, claimedAt)));
  }

  /** An unexpected failure is not an answer to keep: a retry runs the request again. */
  private async release(developerId: string, key: string, claimedAt: Date): Promise<void> {
    await this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.developerId, developerId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.createdAt, claimedAt)))
      .catch(() => undefined);
  }
}
