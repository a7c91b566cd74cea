/** The digits of every id (Crockford's base 32, lowercase): they sort alike under every collation. */
export const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** The number some digits of an id write (most significant first); NaN when one is not a digit. */
export function digitsValue(digits: string): number {
  let value = 0;
  for (const digit of digits) {
    const d = CROCKFORD.indexOf(digit);
    if (d < 0) return Number.NaN;
    value = value * 32 + d;
  }
  return value;
}

/** A ledger row's id ("tx_") is derived from its key, not made here: credits/transaction-id.ts. */
export type IdPrefix = "dev" | "bot" | "tbl" | "m" | "seat" | "req" | "trn";

/**
 * Random digits after the time: 49 bits (the first digit keeps its top bit clear, so incrementing
 * never wraps). Ids made before issue 35 carry 16 (64 bits, every digit's top bit clear): both
 * shapes begin with the same 10 time digits, so they sort together by time and a match id's month
 * (hand_chunks' partitions) reads the same; 6 fewer characters save ~6 bytes wherever an id is
 * stored or indexed (~55 times a heads-up match, ~150 times a six-max one). One process never
 * repeats an id (within a millisecond it increments); two nodes collide only by drawing the same
 * 49 bits in the same millisecond for the same prefix: at the ladder's 15,000 hands/s target on
 * three nodes (~1,700 seats a second) about once in 20,000 years, and a collision is a refused
 * insert (its request fails, nothing moves), not a shared row.
 */
const RANDOM_DIGITS = 10;

let lastTime = -1;
const lastRandom = new Uint8Array(RANDOM_DIGITS);

/**
 * Opaque ids with a type prefix. The body is time-ordered (10 chars of milliseconds) followed
 * by 10 random chars, so ids sort by creation time. Within one millisecond the random part is
 * incremented instead of redrawn (as ULID does), so ids made in order in a process sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms === lastTime) {
    for (let i = RANDOM_DIGITS - 1; i >= 0; i--) {
      lastRandom[i] = (lastRandom[i] + 1) & 31;
      if (lastRandom[i] !== 0) break;
    }
  } else {
    crypto.getRandomValues(lastRandom);
    for (let i = 0; i < RANDOM_DIGITS; i++) lastRandom[i] &= 31;
    lastRandom[0] &= 15; // top bit clear: room to increment
    lastTime = ms;
  }
  let time = "";
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let tail = "";
  for (const digit of lastRandom) tail += CROCKFORD[digit];
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

/** Byte order of ids (as Postgres's "C" collation sorts them): the one lock order every writer uses. */
export const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
