/**
 * The deal's luck (issue 36, aivat-2; docs/RATINGS.md): how much better the hole cards a player was
 * dealt are than the others' actual hole cards, valued before any betting:
 *
 *   deal luck_p = DEAL_WEIGHT · big blind · (e_p − 1/n)
 *
 * with e_p player p's share of the pot over a fixed set of DEAL_BOARDS boards (those that share no
 * card with any hole card dealt), everyone's actual hole cards against each other, ties split.
 *
 * Why its mean is exactly zero: given everything before the deal (seats, stacks, button, blinds),
 * the deck is uniform, and a rotation of the hole cards among the players (baseline.ts) maps decks
 * one to one. The boards used depend only on the set of hole cards dealt, which a rotation keeps, so
 * over the n rotations of any deck player p holds every hand once: Σ_k e_p(rot_k d) = Σ_q e_q = 1,
 * and the luck summed over a deck's rotations is exactly 0 (tested). The value function is fixed
 * here, never fitted on what it rates: the boards come from a fixed stream, the weight from the
 * exploration seeds (estimator.ts).
 *
 * A fixed set of boards instead of every runout (1.7 million heads-up): any fixed function of the
 * deal keeps the mean zero; the boards only need to rank the hands well enough, and cost ~40–80 µs a
 * hand instead of 7–30 ms.
 *
 * Pure; fractional chips per player (history order).
 */
import { seededRng, shuffleDeck } from "@poker-bots/core/rng";
import { evaluate7 } from "@poker-bots/core/evaluator";
import type { FinishedHandRecord } from "./all-in-equity.ts";

/** How many boards value a deal (of them, ~65 % heads-up and ~8 % at ten players share no dealt card). */
export const DEAL_BOARDS = 600;

/**
 * Big blinds per unit of equity above the fair share. Fixed on exploration seeds (`explore2:*`, 300
 * then 600 matches of tight–caller, tight–tight, caller–random, tight–random and 100–200 six-max
 * freezeouts; docs/RATINGS.md): least squares pooled over those pairings, beside aivat-1's terms,
 * 9.5–11.2 (weighted towards the widest pairing: 8.7–18.5); 9, checked on other seeds (`holdout:*`)
 * before the bench's seeds were played.
 */
export const DEAL_WEIGHT = 9;

/** The fixed boards, drawn once from a stream of their own (the same on every node, in every rebuild). */
const BOARDS: Uint8Array = (() => {
  const rng = seededRng("deal-luck boards");
  const boards = new Uint8Array(5 * DEAL_BOARDS);
  for (let b = 0; b < DEAL_BOARDS; b++) boards.set(shuffleDeck(rng, 5).slice(0, 5), 5 * b);
  return boards;
})();

/** Each hand's share of the pot (same order) over the fixed boards clear of every dealt card; 1/n each when none is. */
export function dealEquities(holes: ReadonlyArray<readonly number[]>): number[] {
  const n = holes.length, dealt = new Uint8Array(52), values = new Array<number>(n);
  for (const hole of holes) for (const card of hole) dealt[card] = 1;
  const shares = new Array<number>(n).fill(0);
  let boards = 0;
  for (let b = 0; b < 5 * DEAL_BOARDS; b += 5) {
    if (dealt[BOARDS[b]] || dealt[BOARDS[b + 1]] || dealt[BOARDS[b + 2]] || dealt[BOARDS[b + 3]] || dealt[BOARDS[b + 4]]) continue;
    boards++;
    let best = -1, winners = 0;
    for (let p = 0; p < n; p++) {
      values[p] = evaluate7(holes[p][0], holes[p][1], BOARDS[b], BOARDS[b + 1], BOARDS[b + 2], BOARDS[b + 3], BOARDS[b + 4]);
      if (values[p] > best) (best = values[p]), (winners = 1);
      else if (values[p] === best) winners++;
    }
    for (let p = 0; p < n; p++) if (values[p] === best) shares[p] += 1 / winners;
  }
  return boards === 0 ? shares.fill(1 / n) : shares.map((share) => share / boards);
}

/** Each player's deal luck in chips (history order): sums to zero over the players. */
export function dealLuck(hand: FinishedHandRecord & { bigBlind: number }): number[] {
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  const holes: number[][] = [];
  for (const event of hand.events) if (event.type === "hole_cards") holes[playerOf.get(event.seat)!] = event.cards;
  const n = hand.players.length;
  return dealEquities(holes).map((equity) => DEAL_WEIGHT * hand.bigBlind * (equity - 1 / n));
}
