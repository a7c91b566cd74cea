import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import type { Clock } from "../../lib/clock";
import type { RateVerdict } from "../../lib/rate-limit";

/** Every this many takes, buckets that have refilled completely are deleted (they carry no information). */
const PRUNE_EVERY = 1_000;

/**
 * A token bucket per key kept in Postgres, so every node of a cluster draws on one budget (N
 * processes would otherwise give an attacker N budgets). One statement per take: the refill, the
 * decision and the debit happen atomically in the row's upsert, under its row lock.
 */
export class SharedRateLimiter {
  private takes = 0;

  constructor(
    private readonly db: Db,
    private readonly prefix: string,
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** The budget (`capacity` takes per `windowMs`) for the RateLimit-Policy header. */
  get policy(): { quota: number; windowSeconds: number } {
    return { quota: this.capacity, windowSeconds: Math.round(this.windowMs / 1000) };
  }

  /** Takes one token; says what is left and in how many seconds the bucket is full again (the RateLimit header). */
  async take(key: string): Promise<RateVerdict & { remaining: number; resetSeconds: number }> {
    const now = this.clock.now();
    const ratePerMs = this.capacity / this.windowMs;
    const refilled = sql`least(${this.capacity}::float8, b.tokens + greatest(0, ${now}::bigint - b.at_ms) * ${ratePerMs}::float8)`;
    const [row] = await queryRows<{ tokens: number; last_take_allowed: boolean }>(
      this.db,
      sql`insert into rate_buckets as b (key, tokens, at_ms, last_take_allowed)
          values (${`${this.prefix}:${key}`}, ${this.capacity - 1}::float8, ${now}::bigint, true)
          on conflict (key) do update set
            tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
            at_ms = greatest(b.at_ms, ${now}::bigint),
            last_take_allowed = ${refilled} >= 1
          returning tokens, last_take_allowed`,
    );
    if (++this.takes % PRUNE_EVERY === 0) void this.prune(now).catch(() => {});
    const tokens = Number(row.tokens);
    const state = { remaining: Math.max(0, Math.floor(tokens)), resetSeconds: Math.ceil((this.capacity - tokens) / ratePerMs / 1000) };
    if (row.last_take_allowed) return { allowed: true, ...state };
    return { allowed: false, retryAfterMs: Math.ceil((1 - tokens) / ratePerMs), ...state };
  }

  private prune(now: number): Promise<unknown> {
    return this.db.execute(sql`delete from rate_buckets where key like ${`${this.prefix}:%`} and at_ms < ${now - this.windowMs}::bigint`);
  }
}
