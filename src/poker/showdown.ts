/** Pots, showdown and awards: the end of a hand. */
import { evaluate7 } from "./evaluator.ts";
import type { HandState, PotAward, ShownHand } from "./hand-types.ts";
import { assertChipsConserved, invariantViolated } from "./invariants.ts";

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
  const { contributions, antesPosted, folded } = state;
  const antesAreLive = state.config.anteTrimming;
  // Live antes (the default) leave the live contributions equal to the contributions: no copy.
  const live = antesAreLive ? contributions : new Array<number>(n);
  let deadMoney = 0, contributed = 0;
  for (let p = 0; p < n; p++) {
    contributed += contributions[p];
    if (!antesAreLive) {
      live[p] = contributions[p] - antesPosted[p];
      deadMoney += antesPosted[p];
    }
  }
  const pots: Pot[] = [];
  let total = 0;
  // Layers bottom up: each level is the smallest live contribution above the previous one.
  for (let previous = 0; ; ) {
    let level = Infinity;
    for (let p = 0; p < n; p++) if (live[p] > previous && live[p] < level) level = live[p];
    if (level === Infinity) break;
    let amount = 0;
    const eligible: number[] = [];
    for (let p = 0; p < n; p++) {
      if (live[p] > previous) amount += Math.min(live[p], level) - previous;
      if (live[p] >= level && !folded[p]) eligible.push(p);
    }
    total += amount;
    const below = pots.length > 0 ? pots[pots.length - 1] : null;
    // Layers with the same players (e.g. a folded blind's chips) form one pot; only all-ins split pots.
    if (below && (eligible.length === 0 || sameMembers(below.eligible, eligible))) below.amount += amount;
    else pots.push({ amount, eligible });
    previous = level;
  }
  if (deadMoney > 0) {
    if (pots.length === 0) pots.push({ amount: 0, eligible: inHand(state) });
    pots[0].amount += deadMoney;
    total += deadMoney;
  }
  if (total !== contributed) invariantViolated(`pots add up to ${total}, the contributions to ${contributed}`);
  return pots;
}

function isMember(players: number[], p: number): boolean {
  for (let i = 0; i < players.length; i++) if (players[i] === p) return true;
  return false;
}

function sameMembers(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Player indices still in the hand, ascending. */
function inHand(state: HandState): number[] {
  const players: number[] = [];
  for (let p = 0; p < state.seats.length; p++) if (!state.folded[p]) players.push(p);
  return players;
}

/** Ascending player indices reordered clockwise, starting with the first one at or after `start`. */
function clockwiseFrom(ascending: number[], start: number): number[] {
  const count = ascending.length;
  if (count === 1) return ascending;
  let first = 0;
  while (first < count && ascending[first] < start) first++;
  if (first === count) first = 0;
  const ordered = new Array<number>(count);
  for (let i = 0; i < count; i++) ordered[i] = ascending[first + i < count ? first + i : first + i - count];
  return ordered;
}

/**
 * Equal shares; the odd chips go one each to the winners nearest the button's left. Robert's Rules
 * of Poker (Bob Ciaffone), "Ties": "No player may receive more than one odd chip" and "in a button
 * game, the first hand clockwise from the button gets the odd chip" — so with a three-way split and
 * two odd chips, the first two winners from the button's left get one each.
 */
function payPot(state: HandState, index: number, pot: Pot, ascendingWinners: number[]): PotAward {
  const winners = clockwiseFrom(ascendingWinners, state.button + 1);
  const share = Math.floor(pot.amount / winners.length);
  const oddChips = pot.amount - share * winners.length;
  const shares = new Array<number>(winners.length);
  const winnerSeats = new Array<number>(winners.length);
  for (let i = 0; i < winners.length; i++) {
    shares[i] = i < oddChips ? share + 1 : share;
    state.stacks[winners[i]] += shares[i];
    winnerSeats[i] = state.seats[winners[i]];
  }
  const eligible = new Array<number>(pot.eligible.length);
  for (let i = 0; i < eligible.length; i++) eligible[i] = state.seats[pot.eligible[i]];
  state.events.push({ type: "pot_awarded", pot: index, amount: pot.amount, eligible, winners: winnerSeats, shares });
  return { amount: pot.amount, eligible, winners: winnerSeats, shares };
}

function finishHand(state: HandState, awards: PotAward[], shown: ShownHand[], mucked: number[]): void {
  for (let p = 0; p < state.seats.length; p++) {
    state.contributions[p] = 0;
    state.bets[p] = 0;
  }
  state.actor = -1;
  state.finished = true;
  state.street = "showdown";
  // One snapshot for the result and the event, like the shown cards and pot awards: never mutated.
  const finalStacks = state.stacks.slice();
  state.result = { stacks: finalStacks, pots: awards, shown, mucked, wonWithoutShowdown: shown.length === 0 && mucked.length === 0 };
  state.events.push({ type: "hand_finished", stacks: finalStacks });
  assertChipsConserved(state);
}

/** Everyone else folded: the last player takes every pot without showing. */
export function awardPotsUncontested(state: HandState): void {
  const winner = state.folded.indexOf(false);
  const pots = sidePots(state);
  const awards: PotAward[] = [];
  for (let i = 0; i < pots.length; i++) awards.push(payPot(state, i, pots[i], [winner]));
  finishHand(state, awards, [], []);
}

/**
 * Showing order: the last bettor or raiser of the final betting round first, otherwise the first
 * player left of the button; then clockwise. A player shows only if the hand can still win or tie
 * some pot they are in (it is at least as good as the best hand shown among that pot's players);
 * otherwise it is mucked and stays hidden — unless a player is all in: TDA Rules (2024) Rule 16,
 * "Face Up for All-Ins": once a player is all in and all betting is complete, every hand is tabled.
 */
function showdownOrder(state: HandState): number[] {
  const { folded } = state;
  const n = folded.length;
  const aggressor = state.lastAggressor;
  const first = aggressor >= 0 && !folded[aggressor] ? aggressor : state.button + 1 === n ? 0 : state.button + 1;
  const order: number[] = [];
  for (let i = 0, p = first; i < n; i++, p = p + 1 === n ? 0 : p + 1) if (!folded[p]) order.push(p);
  return order;
}

export function settleShowdown(state: HandState): void {
  const pots = sidePots(state);
  const n = state.seats.length;
  const { board, holeCards } = state;
  const values = new Array<number>(n);
  const b0 = board[0], b1 = board[1], b2 = board[2], b3 = board[3], b4 = board[4];
  for (let p = 0; p < n; p++) {
    values[p] = state.folded[p] ? 0 : evaluate7(holeCards[2 * p], holeCards[2 * p + 1], b0, b1, b2, b3, b4);
  }
  const bestShownInPot = new Array<number>(pots.length);
  for (let i = 0; i < pots.length; i++) bestShownInPot[i] = 0;
  const shown: ShownHand[] = [];
  const mucked: number[] = [];
  const faceUp = state.allInRunout || someoneAllIn(state);
  for (const p of showdownOrder(state)) {
    let canWinSomething = false;
    for (let i = 0; i < pots.length && !canWinSomething; i++) canWinSomething = values[p] >= bestShownInPot[i] && isMember(pots[i].eligible, p);
    const seat = state.seats[p];
    if (faceUp || canWinSomething) {
      const cards = [state.holeCards[2 * p], state.holeCards[2 * p + 1]];
      shown.push({ seat, cards, value: values[p] });
      state.events.push({ type: "show", seat, cards, value: values[p] });
      for (let i = 0; i < pots.length; i++) {
        if (values[p] > bestShownInPot[i] && isMember(pots[i].eligible, p)) bestShownInPot[i] = values[p];
      }
    } else {
      mucked.push(seat);
      state.events.push({ type: "muck", seat });
    }
  }
  const awards: PotAward[] = [];
  for (let i = 0; i < pots.length; i++) awards.push(payPot(state, i, pots[i], bestHandsAmong(pots[i].eligible, values)));
  finishHand(state, awards, shown, mucked);
}

function someoneAllIn(state: HandState): boolean {
  for (let p = 0; p < state.seats.length; p++) if (!state.folded[p] && state.stacks[p] === 0) return true;
  return false;
}

function bestHandsAmong(players: number[], values: number[]): number[] {
  let best = 0;
  for (const p of players) if (values[p] > best) best = values[p];
  const winners: number[] = [];
  for (const p of players) if (values[p] === best) winners.push(p);
  return winners;
}
