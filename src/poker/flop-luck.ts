/**
 * The flop's luck (issue 36, aivat-1; docs/RATINGS.md): the chance correction's value function
 * (each player's exact expected share of the pots of the moment, chance-correction.ts) applied to the
 * flop, when betting was still open after it. Its "before" — the expectation over every flop — would
 * be a preflop enumeration (1.7 million runouts heads-up); instead it is the mean over FLOP_ALTERNATIVES
 * other flops read from the same deck, at positions no hand ever deals (the cards after the last
 * card a hand can deal: 2 × players + 8 onwards):
 *
 *   luck_p = FLOP_WEIGHT · [V_p(the flop dealt) − (1/K) · Σ_k V_p(flop k)]
 *
 * Why its mean is exactly zero: given everything before the flop (the hole cards and the preflop
 * betting, which never sees an undealt card), the undealt cards lie in uniformly random order, so
 * swapping the flop's three positions with alternative k's is a one-to-one map of decks that keeps
 * that past: V_p(flop dealt) and V_p(flop k) have the same expectation, for every k. Deterministic:
 * the same deck gives the same luck (a rebuild is bit for bit).
 *
 * Pure; fractional chips per player (history order).
 */
import { potEquities, type FinishedHandRecord } from "./all-in-equity.ts";
import { luckyCards, potTotal } from "./chance-correction.ts";
import { cardsDealtAtMost } from "./start-validation.ts";

/** Alternative flops averaged: 8 × 3 cards fit after what ten players can be dealt (52 − 28 = 24). */
export const FLOP_ALTERNATIVES = 8;

/**
 * How much the flop's move of equity counts (two betting rounds still to come, like the turn's 2).
 * Fixed from the exploration seeds (least squares 1.19 caller vs random, 2.52 tight vs caller; at 3
 * caller vs random's interval widened): 1.5, between them, before the bench's seeds were played.
 */
export const FLOP_WEIGHT = 1.5;

/** Each player's flop luck (history order), zero when no flop was dealt with betting open; null when the deck is too short to hold the alternatives. */
export function flopLuck(hand: FinishedHandRecord, deck: readonly number[]): number[] | null {
  const move = flopMove(hand, deck);
  return move === null ? null : move.move.map((x) => FLOP_WEIGHT * x);
}

export interface FlopMove {
  move: number[];
  behind: number;
  pot: number;
}

/**
 * The flop's move of each player's expected share of the pots (history order, unweighted: V_p(the
 * flop dealt) − the mean over the alternatives), the chips still behind then (LuckyCard `behind`)
 * and the pots' total then (both 0 without a flop dealt with betting open); null when the deck is
 * too short.
 */
export function flopMove(hand: FinishedHandRecord, deck: readonly number[]): FlopMove | null {
  const n = hand.players.length;
  const first = cardsDealtAtMost(n);
  if (deck.length < first + 3 * FLOP_ALTERNATIVES) return null;
  const move = new Array<number>(n).fill(0);
  const flop = luckyCards(hand, true).find((card) => card.board.length === 3);
  if (!flop) return { move, behind: 0, pot: 0 };
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  const valueWith = (board: number[], sign: number) => {
    for (const pot of potEquities({ ...flop.spot, board })) pot.eligible.forEach((seat, j) => (move[playerOf.get(seat)!] += sign * pot.expected[j]));
  };
  valueWith(flop.board, 1);
  for (let k = 0; k < FLOP_ALTERNATIVES; k++) valueWith(deck.slice(first + 3 * k, first + 3 * k + 3), -1 / FLOP_ALTERNATIVES);
  return { move, behind: flop.behind, pot: potTotal(flop.spot) };
}
