/**
 * Chance correction (issue 26, AIVAT-style, docs/RATINGS.md): a control variate that needs no bot's
 * strategy. Each turn or river card dealt while betting was still open moves equity between the
 * players in the pots of that moment; that move is luck. Its size for a player is
 *
 *   luck = w · Σ over the pots then: (exact expected share with the new card) − (exact expected share before it)
 *
 * both by enumeration over the unseen cards (potEquities). Given everything before the card, every
 * unseen card is equally likely, so the luck has mean zero whatever the bots do afterwards, for any
 * fixed weight w: the corrected result (the all-in equity result minus the luck of every such card)
 * has the raw result's expectation and, when the card's effect on the pot is large, less variance.
 *
 * The weight anticipates the betting still to come: a card that improves a player tends to grow the
 * pot it then wins (value function v = w · expected share of the pots, AIVAT's form with a fixed,
 * strategy-free v). LUCK_WEIGHT is fixed, never fitted on the figures it corrects (docs/RATINGS.md).
 *
 * Cards dealt after the betting closed (an all-in runout) are already credited exactly by the all-in
 * adjustment. The flop is not corrected: its "before" is a preflop enumeration (1.7 million runouts
 * heads-up, 7-30 ms) for every hand that sees a flop; docs/RATINGS.md says what it would buy.
 *
 * Pure; fractional results (expectations, never payouts).
 */
import { allInEquityResults, potEquities, type AllInSpot, type FinishedHandRecord } from "./all-in-equity.ts";
import type { HandEvent } from "./hand-types.ts";
import { invariantViolated } from "../lib/assert.ts";
import { potsOfContributions } from "./showdown.ts";

/** Chips in and who is still in, as the hand history has them after some prefix of its events. */
interface PotsSoFar {
  contributions: number[];
  antesPosted: number[];
  /** Chips put in on the current street (blinds count preflop): a raise's amount is the street total. */
  bets: number[];
  folded: boolean[];
}

type ChipEvent = Extract<HandEvent, { type: "ante" | "blind" | "action" | "uncalled_returned" }>;

const movesChips = (event: HandEvent): event is ChipEvent =>
  event.type === "ante" || event.type === "blind" || event.type === "action" || event.type === "uncalled_returned";

function applyChips(pots: PotsSoFar, p: number, event: ChipEvent): void {
  switch (event.type) {
    case "ante":
      pots.contributions[p] += event.amount;
      pots.antesPosted[p] += event.amount;
      return;
    case "blind":
      pots.contributions[p] += event.amount;
      pots.bets[p] += event.amount;
      return;
    case "action": {
      if (event.action === "fold") pots.folded[p] = true;
      // A raise names the street total it raises to; a call or check the chips it adds.
      const added = event.action === "raise" ? event.amount - pots.bets[p] : event.amount;
      pots.contributions[p] += added;
      pots.bets[p] += added;
      return;
    }
    case "uncalled_returned":
      pots.contributions[p] -= event.amount;
      pots.bets[p] -= event.amount;
      return;
  }
}

/**
 * How much a turn or river card's move of equity in the pots of that moment counts (w above): the
 * pot tends to grow after a card (two betting rounds still to come after the turn, one after the
 * river). Chosen once from an exploration run of tight vs caller on seeds the bench never uses
 * (1,000 matches; least squares gave 2.7 and 1.35), rounded down; 1 and 1 would be plain equity.
 * Any fixed value keeps the correction unbiased; only how much it narrows depends on it.
 */
export const LUCK_WEIGHT = { turn: 2, river: 1.35 } as const;

/**
 * The luck of one street's card for each seat in `spot.seats`: the change of each contestant's
 * expected chips from the spot's pots when the board goes from `spot.board` to `board` (a turn or
 * a river), weighted by LUCK_WEIGHT (or by `weight`).
 */
export function cardLuck(spot: AllInSpot, board: number[], weight: number = board.length === 4 ? LUCK_WEIGHT.turn : LUCK_WEIGHT.river): number[] {
  const before = potEquities(spot), after = potEquities({ ...spot, board });
  const luck = new Array<number>(spot.seats.length).fill(0);
  before.forEach((pot, i) => {
    pot.eligible.forEach((seat, j) => (luck[spot.seats.indexOf(seat)] += weight * (after[i].expected[j] - pot.expected[j])));
  });
  return luck;
}

/** A card whose luck counts: the spot just before it (pots of that moment) and the board with it. */
export interface LuckyCard {
  spot: AllInSpot;
  board: number[];
  /** The most chips one player still in can yet win from another: the second-largest stack behind among them. */
  behind: number;
}

/**
 * Every turn and river (with `withFlop`, the flop too) dealt while betting was still open (someone
 * acted after it), with two or more players in.
 */
export function luckyCards(hand: FinishedHandRecord, withFlop = false): LuckyCard[] {
  const n = hand.players.length;
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  const seatOf = (p: number) => hand.players[p].seat;
  const zeros = () => new Array<number>(n).fill(0);
  const pots: PotsSoFar = { contributions: zeros(), antesPosted: zeros(), bets: zeros(), folded: new Array<boolean>(n).fill(false) };
  const holes: number[][] = [];
  let lastAction = -1;
  hand.events.forEach((event, i) => {
    if (event.type === "action") lastAction = i;
    else if (event.type === "hole_cards") holes[playerOf.get(event.seat)!] = event.cards;
  });
  const cards: LuckyCard[] = [];
  let board: number[] = [];
  hand.events.forEach((event, i) => {
    if (movesChips(event)) applyChips(pots, playerOf.get(event.seat)!, event);
    if (event.type !== "street") return;
    const players = hand.players.map((_, p) => p);
    const inHand = players.filter((p) => !pots.folded[p]);
    if (i < lastAction && event.board.length >= (withFlop ? 3 : 4) && inHand.length >= 2) {
      const layers = potsOfContributions(pots.contributions, pots.antesPosted, pots.folded, hand.config.anteTrimming);
      const spot: AllInSpot = {
        button: hand.button,
        seats: inHand.map(seatOf),
        holeCards: inHand.flatMap((p) => holes[p]),
        board,
        deadCards: players.filter((p) => pots.folded[p]).flatMap((p) => holes[p]),
        pots: layers.map((layer) => ({ amount: layer.amount, eligible: layer.eligible.map(seatOf) })),
      };
      const stacksBehind = inHand.map((p) => hand.players[p].startingStack - pots.contributions[p]).sort((a, b) => b - a);
      cards.push({ spot, board: event.board, behind: stacksBehind[1] });
    }
    pots.bets.fill(0);
    board = event.board;
  });
  return cards;
}

/** The chips in a spot's pots. */
export function potTotal(spot: AllInSpot): number {
  let total = 0;
  for (const pot of spot.pots) total += pot.amount;
  return total;
}

/** Summed luck per player (history order) of the lucky cards. */
export function streetLuck(hand: FinishedHandRecord): number[] {
  const luck = new Array<number>(hand.players.length).fill(0);
  const playerOf = new Map(hand.players.map((player, p) => [player.seat, p]));
  for (const { spot, board } of luckyCards(hand)) cardLuck(spot, board).forEach((x, j) => (luck[playerOf.get(spot.seats[j])!] += x));
  let total = 0;
  for (const x of luck) total += x;
  // Luck only moves chips between players: it sums to zero.
  if (Math.abs(total) > 1e-6) invariantViolated(`street luck sums to ${total}, not 0`);
  return luck;
}

export interface ChanceCorrectedResult {
  seat: number;
  raw: number;
  /** allInEquityResults' figure. */
  allInEquity: number;
  /** allInEquity − the (weighted) luck of the turn and river cards dealt while betting was open. */
  corrected: number;
}

export function chanceCorrectedResults(hand: FinishedHandRecord): ChanceCorrectedResult[] {
  const luck = streetLuck(hand);
  return allInEquityResults(hand).map((r, p) => ({ ...r, corrected: r.allInEquity - luck[p] }));
}
