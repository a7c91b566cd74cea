const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

export type IdPrefix = "dev" | "bot" | "tbl" | "m" | "tx" | "seat" | "req" | "trn";

let lastTime = -1;
const lastRandom = new Uint8Array(16);

/**
 * Opaque ids with a type prefix. The body is time-ordered (10 chars of milliseconds) followed
 * by 16 random chars, so ids sort by creation time. Within one millisecond the random part is
 * incremented instead of redrawn (as ULID does), so ids made in order in a process sort in order.
 */
export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms === lastTime) {
    for (let i = 15; i >= 0; i--) {
      lastRandom[i] = (lastRandom[i] + 1) & 31;
      if (lastRandom[i] !== 0) break;
    }
  } else {
    crypto.getRandomValues(lastRandom);
    for (let i = 0; i < 16; i++) lastRandom[i] &= 15; // top bit clear: room to increment
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
