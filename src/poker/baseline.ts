/**
 * Baseline (issue 36; Davidson, Archibald & Bowling, AAMAS 2013; docs/RATINGS.md): a control
 * variate that needs nothing from the bots being rated. A fixed reference policy plays the hand's
 * own deal against itself, at the hand's own seats, stacks, button, blinds and antes, once for each
 * rotation of the hole cards among the players (rotation k gives player p the cards player p + k
 * was dealt; the board stays). For player p, with f_p(d) the reference's chips won at p on deck d:
 *
 *   baseline_p = f_p(d) − (1/n) · Σ_k f_p(rot_k d)
 *
 * Why its mean is exactly zero, whatever the stacks (carried between hands, a bust ending the
 * match), the blinds (a freezeout's rising ones) and the bots: given everything before the deal, the
 * deck is uniform, and a rotation of the hole cards maps decks one to one, so f_p(rot_k d) has the
 * same expectation as f_p(d) for every k. The same holds over any one deck's orbit: summed over its
 * n rotations the baseline is exactly 0 (tested). Nothing of the real betting enters it, so what
 * the bots know or do cannot move its mean.
 *
 * It needs the whole deck (the board cards a hand never dealt included): a match dealt from a deck
 * secret has it; a hand without one gets no baseline, a per-match rule that never looks at the cards.
 *
 * Pure; integer chips per player (table order).
 */
import { invariant } from "../lib/assert.ts";
import { applyActionInPlace, legalActions, startHand } from "./hand.ts";
import type { HandConfig, HandState, LegalActions, PlayerAction } from "./hand-types.ts";
import { cardsDealtAtMost } from "./start-validation.ts";

/** A reference policy: the decision at a state, from the actor's own view only (its cards, the board, the bets). */
export type ReferencePolicy = (state: HandState, legal: LegalActions) => PlayerAction;

/** What the baseline reads of a hand: who sat where with what, its rules. A stored hand history has all of it. */
export interface DealtHand {
  button: number;
  smallBlind: number;
  bigBlind: number;
  config: Pick<HandConfig, "antes" | "anteTrimming" | "minBet">;
  players: ReadonlyArray<{ seat: number; startingStack: number }>;
}

/** The deck with the hole cards rotated by k: player p gets what player p + k was dealt (hand.ts deals round-robin from the button's left). */
export function rotatedDeck(deck: readonly number[], players: number, buttonPlayer: number, k: number): number[] {
  const rotated = deck.slice(0, cardsDealtAtMost(players));
  const first = (buttonPlayer + 1) % players;
  const slotOf = (p: number, round: number) => round * players + ((p - first + players) % players);
  for (let round = 0; round < 2; round++) {
    for (let p = 0; p < players; p++) rotated[slotOf(p, round)] = deck[slotOf((p + k) % players, round)];
  }
  return rotated;
}

/** The reference's chips won per player (table order) playing `deck` from the hand's start. */
export function referencePlay(hand: DealtHand, deck: number[], policy: ReferencePolicy): number[] {
  const state = startHand({
    seats: hand.players.map((p) => ({ seatIndex: p.seat, stack: p.startingStack })),
    buttonSeatIndex: hand.button,
    smallBlind: hand.smallBlind,
    bigBlind: hand.bigBlind,
    ante: hand.config.antes,
    anteTrimming: hand.config.anteTrimming,
    minBet: hand.config.minBet,
    deck,
  });
  while (!state.finished) {
    const applied = applyActionInPlace(state, policy(state, legalActions(state)!));
    invariant(applied.ok, "the reference policy chose an illegal action");
  }
  return state.result!.stacks.map((stack, p) => stack - hand.players[p].startingStack);
}

/** baseline_p for every player (table order), in chips: sums to zero over the players. */
export function baselineTerms(hand: DealtHand, deck: readonly number[], policy: ReferencePolicy): number[] {
  const n = hand.players.length;
  const buttonPlayer = hand.players.findIndex((p) => p.seat === hand.button);
  invariant(buttonPlayer >= 0, "the button sits at a player of the hand");
  const plays = Array.from({ length: n }, (_, k) => referencePlay(hand, rotatedDeck(deck, n, buttonPlayer, k), policy));
  return hand.players.map((_, p) => {
    let mean = 0;
    for (const play of plays) mean += play[p];
    return plays[0][p] - mean / n;
  });
}
