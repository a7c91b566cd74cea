import type { Clock } from "./clock";

/**
 * Token buckets by key (an IP, a bot): `capacity` requests at once, refilled continuously at
 * `capacity` per `windowMs`. In memory and per process: a guard against abuse, not a quota.
 */
export type RateVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one token; when none is left, says how long until one is. */
  take(key: string): RateVerdict {
    const now = this.clock.now();
    const ratePerMs = this.capacity / this.windowMs;
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * ratePerMs);
    bucket.at = now;
    if (this.buckets.size > 50_000) this.prune(now, ratePerMs);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / ratePerMs) };
  }

  /** Buckets that have refilled completely carry no information: drop them. */
  private prune(now: number, ratePerMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * ratePerMs >= this.capacity) this.buckets.delete(key);
    }
  }
}
