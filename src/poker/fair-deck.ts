/**
 * Provably fair deals: every deck of a match is a pure function of a 256-bit secret drawn at
 * match start and the hand number, so the secret, revealed after the match, lets anyone re-derive
 * every card; its SHA-256 (the commitment) is published before the first card is dealt.
 * The algorithm is part of the public contract (docs/FAIRNESS.md): changing it needs a new name.
 */
import { createHash } from "node:crypto";
import type { Card } from "@poker-bots/core/cards";
import { shuffleDeck, type Rng } from "@poker-bots/core/rng";

export const FAIR_DECK_ALGORITHM = "hmac-sha256-fisher-yates-v1";
/**
 * The duplicate matches recorded before issue 32 (one match, each deal twice): hand n played the
 * deck of deal ⌈n / 2⌉. Only old records carry it; a duplicate pair's two copies each use the
 * plain algorithm (hand n ← deck n), from one shared secret.
 */
export const DUPLICATE_DECK_ALGORITHM = `${FAIR_DECK_ALGORITHM}-duplicate`;

/**
 * The deck secret of a seeded match: SHA-256 of the text `seeded deck <seed>` (hex). A seeded match
 * deals hand n as a fair match would from this secret: its decks depend on the seed and the hand
 * number alone, never on what the bots drew or did (a built-in's random choices come from their
 * own stream), so the two copies of a seeded duplicate pair deal the same decks.
 */
export function seededDeckSecret(seed: string): string {
  return createHash("sha256").update(`seeded deck ${seed}`).digest("hex");
}

/** Lowercase hex SHA-256 of the secret's bytes. */
export function deckCommitment(secretHex: string): string {
  return createHash("sha256").update(Buffer.from(secretHex, "hex")).digest("hex");
}

/**
 * The uint32 stream of one hand: HMAC-SHA256 keyed by the secret over the ASCII text
 * `hand <n> block <k>` for k = 0, 1, 2, …; each 32-byte block is eight big-endian words.
 */
export function handStream(secretHex: string, handNumber: number): Rng {
  // Keyed once per hand; each block starts from a copy of that state (Bun's HMAC: a third of
  // node:crypto's createHmac per block, and the deck is drawn for every hand).
  const keyed = new Bun.CryptoHasher("sha256", Buffer.from(secretHex, "hex"));
  let block: Uint8Array = new Uint8Array(0);
  let k = 0, offset = 32;
  return {
    nextUint32() {
      if (offset === 32) {
        block = keyed.copy().update(`hand ${handNumber} block ${k++}`).digest();
        offset = 0;
      }
      const word = ((block[offset] << 24) | (block[offset + 1] << 16) | (block[offset + 2] << 8) | block[offset + 3]) >>> 0;
      offset += 4;
      return word;
    },
  };
}

/**
 * The deck of hand `handNumber`: Fisher–Yates over 2c, 2d, 2h, 2s, 3c, … As (card id = rank × 4
 * + suit), for i = 0 … 50 swapping position i with i + (w mod (52 − i)), where w is the next word
 * of the hand's stream below the largest multiple of (52 − i) that fits in 2^32 (rejection: no bias).
 * Step i fixes position i for good, so with `cardsNeeded` (a hand deals at most 2 × players + 8)
 * only the first steps are run: those cards are exactly the full deck's, the rest are never dealt.
 */
export function fairDeck(secretHex: string, handNumber: number, cardsNeeded = 52): Card[] {
  return shuffleDeck(handStream(secretHex, handNumber), cardsNeeded);
}
