const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

export type IdPrefix = "dev" | "bot" | "tbl" | "m" | "tx" | "seat" | "req";

/**
 * Opaque ids with a type prefix. The body is time-ordered (10 chars of milliseconds)
 * followed by 16 random chars, so ids sort by creation time and never collide in practice.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  let time = "";
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = crypto.getRandomValues(new Uint8Array(16));
  let tail = "";
  for (const byte of random) tail += CROCKFORD[byte & 31];
  return `${prefix}_${time}${tail}`;
}

/** A high-entropy secret with a prefix (bot api keys). */
export function newSecret(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `${prefix}_${Buffer.from(bytes).toString("base64url")}`;
}

export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
