import type { Card } from "@poker-bots/core/cards";
import { cryptoRng, seededRng, type Rng } from "@poker-bots/core/rng";
import { invariant } from "../../lib/assert";
import { fairDeck, seededDeckSecret } from "../../poker/fair-deck";
import type { TableRuntime } from "../tables/runtime";

/**
 * Which deal a hand of a duplicate match recorded before issue 32 played: one match dealt every
 * deal twice, hands 2k − 1 and 2k. Only `cli verify` of old records needs it: a duplicate pair's
 * copies each deal hand n from deck n.
 */
export function dealOfHand(handNumber: number, legacyDuplicate: boolean): number {
  return legacyDuplicate ? Math.ceil(handNumber / 2) : handNumber;
}

/**
 * The deck of each hand, a pure function of the hand number: from the match's committed secret
 * (provably fair), or for a seeded match from its seed's secret (seededDeckSecret), never from what
 * a bot drew. The two copies of a duplicate pair share the secret (or the seed), so copy 2's hand n
 * is copy 1's hand n's deck.
 */
export function dealSource(table: Pick<TableRuntime, "tableId" | "config" | "deckSecret">): (handNumber: number, cardsNeeded: number) => Card[] {
  const seed = table.config.seed;
  const secret = seed !== undefined ? seededDeckSecret(seed) : table.deckSecret;
  invariant(secret !== null, `table ${table.tableId}: an unseeded match deals from its committed secret`);
  return (handNumber, cardsNeeded) => fairDeck(secret, handNumber, cardsNeeded);
}

/**
 * The built-in bots' random draws at a table: the seed's stream (per copy of a duplicate pair, so
 * copy 1's draws never shift copy 2's), else the system's CSPRNG.
 */
export function builtInRng(table: Pick<TableRuntime, "config" | "twin">): Rng {
  const seed = table.config.seed;
  if (seed === undefined) return cryptoRng();
  return seededRng(table.twin ? `${seed} copy ${table.twin.copy}` : seed);
}
