/**
 * The depth of a card's luck (issue 36, aivat-2; docs/RATINGS.md): the flop, turn and river terms
 * (flop-luck.ts, chance-correction.ts) value a card by its move of each player's expected share of
 * the pots of the moment, times a fixed weight for the betting still to come. How much that betting
 * can still move grows with the chips behind: a card that improves a player in a small pot with deep
 * stacks tends to win far more than the pot. This term adds, for each such card,
 *
 *   depth luck_p = DEPTH_WEIGHT[street] · (behind / pot) · (the card's move of p's expected share)
 *
 * with `behind` the second-largest stack still behind among the players in (the most one of them can
 * yet win from another) and `pot` the pots' total, both read off the history before the card.
 *
 * Why its mean is zero: the factor (behind / pot) is fixed by everything before the card, and the
 * move has mean exactly zero given that past (every unseen turn or river card equally likely; the
 * flop against its alternatives from the same deck, swapped one to one). A fixed factor times a
 * mean-zero term stays mean zero (tested like the terms it scales). The same factor for every player,
 * so it sums to zero over the players too.
 *
 * Pure; fractional chips per player (history order).
 */
import type { FinishedHandRecord } from "./all-in-equity.ts";
import { cardLuck, luckyCards, potTotal } from "./chance-correction.ts";
import type { FlopMove } from "./flop-luck.ts";

/**
 * Weights per unit of stack-to-pot ratio. Fixed on the exploration seeds of deal-luck.ts's
 * DEAL_WEIGHT (least squares pooled over the pairings: flop 0.17–0.22, turn 0.06–0.09, river
 * 0.05–0.09; weighted towards the widest pairing: 0.11–0.18, 0.01–0.07, 0.04), checked on
 * `holdout:*` seeds, before the bench's seeds were played.
 */
export const DEPTH_WEIGHT = { flop: 0.14, turn: 0.05, river: 0.06 } as const;

/** Each player's depth luck in chips (history order), given the hand's flop move (flop-luck.ts `flopMove`, computed once for both terms). */
export function depthLuck(hand: FinishedHandRecord, flop: FlopMove): number[] {
  const luck = flop.move.map((x) => (flop.pot > 0 ? (DEPTH_WEIGHT.flop * flop.behind * x) / flop.pot : 0));
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  for (const { spot, board, behind } of luckyCards(hand)) {
    const weight = ((board.length === 4 ? DEPTH_WEIGHT.turn : DEPTH_WEIGHT.river) * behind) / potTotal(spot);
    cardLuck(spot, board, weight).forEach((x, j) => (luck[playerOf.get(spot.seats[j])!] += x));
  }
  return luck;
}
