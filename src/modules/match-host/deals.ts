import type { TableConfig } from "../../db/schema";
import type { Card } from "@poker-bots/core/cards";
import { fairDeck } from "../../poker/fair-deck";
import { shuffleDeck, type Rng } from "@poker-bots/core/rng";

/**
 * Which deal a hand plays: in a duplicate match every deal is played twice, hands 2k − 1 and 2k
 * (heads-up, the button moves between them, so the second copy gives each seat the other's cards
 * and position).
 */
export function dealOfHand(handNumber: number, duplicate: boolean): number {
  return duplicate ? Math.ceil(handNumber / 2) : handNumber;
}

/**
 * The deck of each hand: from the match's committed secret (provably fair), or else from the seeded
 * PRNG in play order (replays). A duplicate match repeats each deck once.
 */
export function dealSource(config: Pick<TableConfig, "duplicate">, deckSecret: string | null, rng: Rng): (handNumber: number, cardsNeeded: number) => Card[] {
  const duplicate = config.duplicate === true;
  if (deckSecret !== null) return (handNumber, cardsNeeded) => fairDeck(deckSecret, dealOfHand(handNumber, duplicate), cardsNeeded);
  // The seeded PRNG shuffles whole decks: a replay draws the same words in the same order.
  let previous: Card[] = [];
  return (handNumber) => {
    if (!duplicate || handNumber % 2 === 1) previous = shuffleDeck(rng);
    return previous.slice();
  };
}
