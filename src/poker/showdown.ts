/** Pots, showdown and awards: the end of a hand. */
import { evaluate7 } from "./evaluator.ts";
import type { HandState, PotAward, ShownHand } from "./hand-types.ts";
import { assert, assertChipsConserved } from "./invariants.ts";

interface Pot {
  amount: number;
  /** Player indices still in the hand who contributed to this layer. */
  eligible: number[];
}

/**
 * Main and side pots, one per contribution layer (pokerkit's algorithm). Dead antes (when ante
 * trimming is off) go to the main pot. A layer that no remaining player reached (possible when a
 * folded player put in more than every player still in, e.g. an ante beyond an all-in) joins the
 * pot below it, and consecutive layers with the same players are one pot.
 */
export function sidePots(state: HandState): Pot[] {
  const n = state.seats.length;
  const live = state.contributions.slice();
  let deadMoney = 0;
  if (!state.config.anteTrimming) {
    for (let p = 0; p < n; p++) {
      live[p] -= state.antesPosted[p];
      deadMoney += state.antesPosted[p];
    }
  }
  const levels = live.filter((c) => c > 0).sort((x, y) => x - y);
  const pots: Pot[] = [];
  let previous = 0;
  for (const level of levels) {
    if (level === previous) continue;
    let amount = 0;
    const eligible: number[] = [];
    for (let p = 0; p < n; p++) {
      if (live[p] > previous) amount += Math.min(live[p], level) - previous;
      if (live[p] >= level && !state.folded[p]) eligible.push(p);
    }
    const below = pots[pots.length - 1];
    // Layers with the same players (e.g. a folded blind's chips) form one pot; only all-ins split pots.
    if (below && (eligible.length === 0 || sameMembers(below.eligible, eligible))) below.amount += amount;
    else pots.push({ amount, eligible });
    previous = level;
  }
  if (deadMoney > 0) {
    if (pots.length === 0) pots.push({ amount: 0, eligible: inHand(state) });
    pots[0].amount += deadMoney;
  }
  let total = 0;
  for (const pot of pots) total += pot.amount;
  assert(total === state.contributions.reduce((s, c) => s + c, 0), "pots do not add up to the contributions");
  return pots;
}

function sameMembers(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function inHand(state: HandState): number[] {
  const players: number[] = [];
  for (let p = 0; p < state.seats.length; p++) if (!state.folded[p]) players.push(p);
  return players;
}

/** Seats in order from the first one left of the button: the order odd chips are handed out. */
function leftOfButtonOrder(state: HandState, players: number[]): number[] {
  const n = state.seats.length;
  const distance = (p: number) => (p - state.button - 1 + n) % n;
  return [...players].sort((x, y) => distance(x) - distance(y));
}

/** Equal shares; the odd chips go one each to the winners nearest the button's left. */
function splitPot(state: HandState, amount: number, winners: number[]): { winners: number[]; shares: number[] } {
  const ordered = leftOfButtonOrder(state, winners);
  const share = Math.floor(amount / ordered.length);
  const oddChips = amount - share * ordered.length;
  return { winners: ordered, shares: ordered.map((_, i) => share + (i < oddChips ? 1 : 0)) };
}

function payPots(state: HandState, pots: Pot[], winnersOf: (pot: Pot) => number[]): PotAward[] {
  return pots.map((pot, index) => {
    const { winners, shares } = splitPot(state, pot.amount, winnersOf(pot));
    winners.forEach((p, i) => (state.stacks[p] += shares[i]));
    const award: PotAward = {
      amount: pot.amount,
      eligible: pot.eligible.map((p) => state.seats[p]),
      winners: winners.map((p) => state.seats[p]),
      shares,
    };
    state.events.push({ type: "pot_awarded", pot: index, ...award });
    return award;
  });
}

function finishHand(state: HandState, awards: PotAward[], shown: ShownHand[], mucked: number[]): void {
  state.contributions.fill(0);
  state.bets.fill(0);
  state.actor = -1;
  state.finished = true;
  state.street = "showdown";
  state.result = { stacks: state.stacks.slice(), pots: awards, shown, mucked, wonWithoutShowdown: shown.length === 0 && mucked.length === 0 };
  state.events.push({ type: "hand_finished", stacks: state.stacks.slice() });
  assertChipsConserved(state);
}

/** Everyone else folded: the last player takes every pot without showing. */
export function awardPotsUncontested(state: HandState): void {
  const [winner] = inHand(state);
  const awards = payPots(state, sidePots(state), () => [winner]);
  finishHand(state, awards, [], []);
}

/**
 * Showing order: the last bettor or raiser of the final betting round first, otherwise the first
 * player left of the button; then clockwise. A player shows only if the hand can still win or tie
 * some pot they are in (it is at least as good as the best hand shown among that pot's players);
 * otherwise it is mucked and stays hidden. After an all-in run-out every hand is tabled.
 */
function showdownOrder(state: HandState): number[] {
  const n = state.seats.length;
  const players = inHand(state);
  const first = state.lastAggressor >= 0 && !state.folded[state.lastAggressor] ? state.lastAggressor : leftOfButtonOrder(state, players)[0];
  return [...players].sort((x, y) => ((x - first + n) % n) - ((y - first + n) % n));
}

export function settleShowdown(state: HandState): void {
  const pots = sidePots(state);
  const values = new Array<number>(state.seats.length).fill(0);
  const [b0, b1, b2, b3, b4] = state.board;
  for (const p of inHand(state)) values[p] = evaluate7(state.holeCards[2 * p], state.holeCards[2 * p + 1], b0, b1, b2, b3, b4);

  const bestShownInPot = pots.map(() => 0);
  const shown: ShownHand[] = [];
  const mucked: number[] = [];
  for (const p of showdownOrder(state)) {
    const canWinSomething = pots.some((pot, i) => pot.eligible.includes(p) && values[p] >= bestShownInPot[i]);
    const seat = state.seats[p];
    if (state.allInRunout || canWinSomething) {
      const cards = [state.holeCards[2 * p], state.holeCards[2 * p + 1]];
      shown.push({ seat, cards, value: values[p] });
      state.events.push({ type: "show", seat, cards, value: values[p] });
      pots.forEach((pot, i) => {
        if (pot.eligible.includes(p)) bestShownInPot[i] = Math.max(bestShownInPot[i], values[p]);
      });
    } else {
      mucked.push(seat);
      state.events.push({ type: "muck", seat });
    }
  }
  const awards = payPots(state, pots, (pot) => {
    let best = 0;
    for (const p of pot.eligible) best = Math.max(best, values[p]);
    return pot.eligible.filter((p) => values[p] === best);
  });
  finishHand(state, awards, shown, mucked);
}
