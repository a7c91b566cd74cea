/**
 * All-in adjustment (issue 26; docs/RATINGS.md). When a hand's betting ends before the river with
 * two or more players left (someone all in) and the board is then run out, the cards that came
 * decide a pot nobody could act on any more: luck, not skill. The all-in equity result credits each
 * contested pot by each contestant's exact expected share over EVERY runout of the rest of the
 * board, enumerated with our evaluator; side pots by their own contestants; a tie split as the
 * showdown splits it (odd chips to the winners nearest the button's left, showdown.ts tieShare).
 *
 * The all-in equity figure is an expectation, not money: it is fractional (chips × count / runouts)
 * and only ever feeds statistics (bb/100 and its interval); stacks and payouts stay the integer
 * results of the cards that came. It is unbiased: given everything dealt so far, every runout of
 * the unseen cards is equally likely, so the all-in equity result is the conditional mean of the raw one.
 *
 * Pure: no RNG (exhaustive enumeration), no clock; the inputs are never mutated.
 */
import { CARD_KEYS, FLUSH_BITS, SUIT_COUNTER_START, evaluate7, nonFlushValueOfKey } from "@poker-bots/core/evaluator";
import type { HandConfig, HandEvent, HandState, PotAward } from "./hand-types.ts";
import { invariant as assert, invariantViolated } from "../lib/assert.ts";
import { firstClockwiseFrom, tieShare } from "./showdown.ts";

/**
 * A spot to settle by equity: who contests which pot with which cards, and what is still to come.
 * For the all-in adjustment, the moment the betting stopped; for the chance correction, the moment
 * before a turn or river card.
 */
export interface AllInSpot {
  /** Seat of the button: odd chips go clockwise from its left. */
  button: number;
  /** Seats of the players still in the hand, ascending (table order). */
  seats: number[];
  /** Two per player, aligned with seats: holeCards[2i], holeCards[2i + 1]. */
  holeCards: number[];
  /** Board cards dealt so far (0, 3 or 4; 5 leaves one runout: the board itself). */
  board: number[];
  /** Other cards known to be out of the deck: folded players' hole cards (dead, never on the board). */
  deadCards: number[];
  /** Pots in order (main pot first); eligible = seats still in that contributed to it, ascending. */
  pots: Array<{ amount: number; eligible: number[] }>;
}

export interface PotEquity {
  amount: number;
  eligible: number[];
  /** Expected chips each eligible seat takes from this pot over every runout; sums to amount. */
  expected: number[];
  /** Runouts enumerated (C(unseen cards, cards to come)). */
  runouts: number;
}

/** C(n, k), exactly (every count here is far below 2^53). */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}

/** The cards no player holds and the board does not show, ascending: the runouts are drawn from these. */
function unseenCards(spot: AllInSpot): number[] {
  const seen = new Uint8Array(52);
  for (const card of [...spot.holeCards, ...spot.board, ...spot.deadCards]) {
    if (!(card >= 0 && card < 52) || seen[card]) invariantViolated(`card ${card} is invalid or seen twice in an all-in spot`);
    seen[card] = 1;
  }
  const unseen: number[] = [];
  for (let card = 0; card < 52; card++) if (!seen[card]) unseen.push(card);
  return unseen;
}

/**
 * Expected chips per contestant per pot: every runout is enumerated once; for each contested pot
 * the set of its best hands (a bitmask over its eligible players) is counted, and each set is then
 * paid as the showdown would pay it, weighted by how many runouts give it. Exact up to the division
 * by the runout count at the end.
 */
export function potEquities(spot: AllInSpot): PotEquity[] {
  const players = spot.seats.length;
  assert(spot.holeCards.length === 2 * players, "two hole cards per player in an all-in spot");
  assert(spot.board.length <= 5, "a board has at most five cards");
  const unseen = unseenCards(spot);
  const toCome = 5 - spot.board.length;
  // Eligible seats as player indices; one outcome counter per winner set of each contested pot.
  const members = spot.pots.map((pot) => pot.eligible.map((seat) => playerOfSeat(spot.seats, seat)));
  const contested = members.filter((m) => m.length >= 2);
  const outcomes = contested.map((m) => new Float64Array(1 << m.length));
  const runouts = countOutcomes(spot, unseen, contested, outcomes);
  const expectedRunouts = binomial(unseen.length, toCome);
  if (runouts !== expectedRunouts) invariantViolated(`enumerated ${runouts} runouts, expected C(${unseen.length}, ${toCome}) = ${expectedRunouts}`);
  let c = 0;
  return spot.pots.map((pot, i) => ({
    amount: pot.amount,
    eligible: pot.eligible.slice(),
    expected: members[i].length >= 2 ? expectedShares(pot, outcomes[c++], runouts, spot.button) : [pot.amount],
    runouts,
  }));
}

/**
 * The hot loop (a preflop all-in heads-up is 1,712,304 runouts): every set of the cards to come,
 * in lexicographic order, iteratively (a recursive walk was 1.5-3× slower), the board's evaluator key
 * summed one card at a time; per runout each player's value, then per contested pot the bitmask of
 * its best hands among its members, counted. Returns the number of runouts.
 */
function countOutcomes(spot: AllInSpot, unseen: number[], contested: number[][], outcomes: Float64Array[]): number {
  const players = spot.seats.length, holeCards = spot.holeCards, known = spot.board.length, toCome = 5 - known, n = unseen.length;
  const holeKeys = new Float64Array(players);
  for (let p = 0; p < players; p++) holeKeys[p] = CARD_KEYS[holeCards[2 * p]] + CARD_KEYS[holeCards[2 * p + 1]];
  const board = new Int32Array(5);
  const keys = new Float64Array(toCome + 1);
  keys[0] = SUIT_COUNTER_START;
  for (let i = 0; i < known; i++) {
    board[i] = spot.board[i];
    keys[0] += CARD_KEYS[spot.board[i]];
  }
  const tally: RunoutTally = { holeCards, holeKeys, board, values: new Int32Array(players), contested, outcomes };
  if (toCome === 0) {
    tallyRunout(tally, keys[0]);
    return 1;
  }
  const at = new Int32Array(toCome);
  let runouts = 0;
  // at[d]: index in `unseen` of the d-th card to come; d counts down past 0 when every set is done.
  at[0] = -1;
  for (let d = 0; d >= 0; ) {
    if (++at[d] > n - toCome + d) {
      d--;
      continue;
    }
    const card = unseen[at[d]];
    board[known + d] = card;
    keys[d + 1] = keys[d] + CARD_KEYS[card];
    if (d + 1 < toCome) {
      at[d + 1] = at[d];
      d++;
      continue;
    }
    runouts++;
    tallyRunout(tally, keys[toCome]);
  }
  return runouts;
}

interface RunoutTally {
  holeCards: number[];
  holeKeys: Float64Array;
  /** The five cards of the runout being tallied. */
  board: Int32Array;
  values: Int32Array;
  contested: number[][];
  outcomes: Float64Array[];
}

/** One runout (board key summed): each player's value, then each contested pot's best hands counted. */
function tallyRunout(t: RunoutTally, boardKey: number): void {
  const { holeCards, holeKeys, board, values, contested, outcomes } = t;
  for (let p = 0; p < values.length; p++) {
    const k = boardKey + holeKeys[p];
    // The evaluator's own key arithmetic (as bench/exhaustive.ts): only a flush needs the cards.
    values[p] = ((k | 0) & FLUSH_BITS) === 0
      ? nonFlushValueOfKey(k)
      : evaluate7(holeCards[2 * p], holeCards[2 * p + 1], board[0], board[1], board[2], board[3], board[4]);
  }
  for (let i = 0; i < contested.length; i++) {
    const m = contested[i];
    let best = 0, winners = 0;
    for (let j = 0; j < m.length; j++) {
      const v = values[m[j]];
      if (v > best) (best = v), (winners = 1 << j);
      else if (v === best) winners |= 1 << j;
    }
    outcomes[i][winners]++;
  }
}

function playerOfSeat(seats: number[], seat: number): number {
  const p = seats.indexOf(seat);
  if (p < 0) invariantViolated(`pot eligible seat ${seat} is not in the hand`);
  return p;
}

/** Each winner set paid as the showdown pays it (tieShare, clockwise from the button's left), averaged. */
function expectedShares(pot: { amount: number; eligible: number[] }, outcomes: Float64Array, runouts: number, button: number): number[] {
  const chips = new Array<number>(pot.eligible.length).fill(0);
  for (let winners = 1; winners < outcomes.length; winners++) {
    const count = outcomes[winners];
    if (count === 0) continue;
    const winnerSeats: number[] = [];
    const winnerIndex: number[] = [];
    for (let j = 0; j < pot.eligible.length; j++) if (winners & (1 << j)) winnerSeats.push(pot.eligible[j]), winnerIndex.push(j);
    const w = winnerSeats.length;
    for (let i = 0, k = firstClockwiseFrom(winnerSeats, button + 1); i < w; i++, k = k + 1 === w ? 0 : k + 1) {
      chips[winnerIndex[k]] += count * tieShare(pot.amount, w, i);
    }
  }
  let paid = 0;
  for (const c of chips) paid += c;
  // Integer sums (count × share) until here: the pot is paid out exactly on every runout.
  if (paid !== pot.amount * runouts) invariantViolated(`a pot of ${pot.amount} paid ${paid} over ${runouts} runouts`);
  return chips.map((c) => c / runouts);
}

/** What the adjustment reads from a finished hand; a stored hand history (StoredHand) has all of it. */
export interface FinishedHandRecord {
  /** Seat of the button. */
  button: number;
  /** Table order (seats ascending), as the hand was dealt. */
  players: ReadonlyArray<{ seat: number; startingStack: number; finalStack: number }>;
  events: readonly HandEvent[];
  pots: readonly PotAward[];
  /** How antes layer into pots, for pots read off the events mid-hand (chance-correction.ts). */
  config: Pick<HandConfig, "anteTrimming">;
}

/** A finished HandState read as a record (the fields a stored history copies from it). */
export function finishedHandRecord(state: HandState): FinishedHandRecord {
  assert(state.finished && state.result !== null, "only a finished hand has a result to adjust");
  const stacks = state.result.stacks;
  return {
    button: state.seats[state.button],
    players: state.seats.map((seat, p) => ({ seat, startingStack: state.startingStacks[p], finalStack: stacks[p] })),
    events: state.events,
    pots: state.result.pots,
    config: state.config,
  };
}

/**
 * The spot where the betting stopped, if the board was then run out: the streets dealt after the
 * last action (or, with no action at all, after blinds put everyone all in) had nobody to act on
 * them. null when the hand ended by folds, was decided on the river, or no pot was contested.
 */
export function allInSpot(hand: FinishedHandRecord): AllInSpot | null {
  let lastAction = -1;
  hand.events.forEach((event, i) => {
    if (event.type === "action") lastAction = i;
  });
  let board: number[] = [];
  let ranOut = false;
  const holes = new Map<number, number[]>();
  hand.events.forEach((event, i) => {
    if (event.type === "street") {
      if (i < lastAction) board = event.board;
      else ranOut = true;
    } else if (event.type === "hole_cards") holes.set(event.seat, event.cards);
  });
  if (!ranOut || !hand.pots.some((pot) => pot.eligible.length >= 2)) return null;
  const inHand = new Set(hand.pots.flatMap((pot) => pot.eligible));
  const seats = hand.players.map((p) => p.seat).filter((seat) => inHand.has(seat));
  const cardsOf = (seat: number) => holes.get(seat) ?? invariantViolated(`no hole cards for seat ${seat} in the history`);
  return {
    button: hand.button,
    seats,
    holeCards: seats.flatMap(cardsOf),
    board: board.slice(),
    deadCards: hand.players.filter((p) => !inHand.has(p.seat)).flatMap((p) => cardsOf(p.seat)),
    pots: hand.pots.map((pot) => ({ amount: pot.amount, eligible: pot.eligible.slice() })),
  };
}

export interface AllInEquityResult {
  seat: number;
  /** Chips won (negative: lost) as dealt: final stack − starting stack. */
  raw: number;
  /** The same with every contested pot of an all-in runout credited by exact equity (fractional: an expectation). */
  allInEquity: number;
}

/** Raw and all-in equity net result of every player of a finished hand, in the history's player order. */
export function allInEquityResults(hand: FinishedHandRecord): AllInEquityResult[] {
  const results = hand.players.map((p) => ({ seat: p.seat, raw: p.finalStack - p.startingStack, allInEquity: p.finalStack - p.startingStack }));
  const spot = allInSpot(hand);
  if (spot === null) return results;
  const bySeat = new Map(results.map((r) => [r.seat, r]));
  potEquities(spot).forEach((equity, i) => {
    // What the cards that came paid goes back; what every runout pays on average comes instead.
    const award = hand.pots[i];
    award.winners.forEach((seat, j) => (bySeat.get(seat)!.allInEquity -= award.shares[j]));
    equity.eligible.forEach((seat, j) => (bySeat.get(seat)!.allInEquity += equity.expected[j]));
  });
  let drift = 0;
  for (const r of results) drift += r.allInEquity - r.raw;
  // The adjustment only moves each pot between its own contestants: the players' total is unchanged.
  if (Math.abs(drift) > 1e-9 * (1 + spot.pots.reduce((sum, pot) => sum + pot.amount, 0))) invariantViolated(`the adjustment changed the players' total by ${drift}`);
  return results;
}
