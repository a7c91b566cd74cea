import { fullDeck, type Card } from "./cards.ts";

/** A source of uniformly distributed unsigned 32-bit integers. */
export interface Rng {
  nextUint32(): number;
}

const CRYPTO_BUFFER_WORDS = 1024;

/** crypto.getRandomValues, refilled 4 KiB at a time. */
export function cryptoRng(): Rng {
  const buffer = new Uint32Array(CRYPTO_BUFFER_WORDS);
  let position = CRYPTO_BUFFER_WORDS;
  return {
    nextUint32() {
      if (position === CRYPTO_BUFFER_WORDS) {
        crypto.getRandomValues(buffer);
        position = 0;
      }
      return buffer[position++];
    },
  };
}

/**
 * cyrb128 string hash (public domain, bryc): 128 bits of seed material from any string.
 * Numbers are hashed through their decimal text so seed 42 and seed "42" replay the same match.
 */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/**
 * Deterministic PRNG for replayable matches: sfc32 (Chris Doty-Humphrey's Small Fast Counter,
 * PractRand-clean) seeded with the cyrb128 hash of String(seed), then 15 outputs discarded.
 * The algorithm is part of the replay contract: changing it changes every seeded match.
 */
export function seededRng(seed: string | number): Rng {
  let [a, b, c, d] = cyrb128(String(seed));
  const rng: Rng = {
    nextUint32() {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return t >>> 0;
    },
  };
  for (let i = 0; i < 15; i++) rng.nextUint32();
  return rng;
}

const TWO_POW_32 = 0x100000000;

/**
 * Uniform integer in [0, bound) by rejection sampling: no modulo bias. Draws at or above the
 * largest multiple of bound that fits in 2^32 are rejected, the rest reduced mod bound.
 * Quotients are taken by float division (exact here, operands below 2^53): `%` on draws of 2^31
 * and above is an fmod call, several times slower.
 */
export function uniformInt(rng: Rng, bound: number): number {
  if (!Number.isInteger(bound) || bound <= 0 || bound > TWO_POW_32) throw new Error(`invalid bound ${bound}`);
  for (;;) {
    const draw = rng.nextUint32();
    // The limit is above 2^32 - bound, so only the top `bound` draws need it computed.
    if (draw <= TWO_POW_32 - bound || draw < Math.floor(TWO_POW_32 / bound) * bound) {
      // `>>> 0` leaves the value alone but keeps it an integer for the JIT: a result typed as a
      // double would turn every chip array it reaches (raise amounts, stacks) into doubles.
      return (draw - Math.floor(draw / bound) * bound) >>> 0;
    }
  }
}

/**
 * Fisher–Yates over a fresh 52-card deck. With `cardsNeeded` only the first cardsNeeded positions
 * are drawn (each a uniform choice from the cards not yet placed, so that prefix is a uniformly
 * random deal); the rest of the deck is left in no particular order. A hand uses at most
 * 2 × players + 8 cards.
 */
export function shuffleDeck(rng: Rng, cardsNeeded = 52): Card[] {
  const deck = fullDeck();
  const last = Math.min(cardsNeeded, 51);
  for (let i = 0; i < last; i++) {
    const j = i + uniformInt(rng, 52 - i);
    const held = deck[i];
    deck[i] = deck[j];
    deck[j] = held;
  }
  return deck;
}

export function shuffleInPlace<T>(items: T[], rng: Rng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = uniformInt(rng, i + 1);
    const held = items[i];
    items[i] = items[j];
    items[j] = held;
  }
  return items;
}
