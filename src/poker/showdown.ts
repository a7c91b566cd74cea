/** Pots, showdown and awards: the end of a hand. */
import { evaluate7 } from "@poker-bots/core/evaluator";
import type { HandState, PotAward, ShownHand } from "./hand-types.ts";
import { assertChipsConserved } from "./invariants.ts";
import { invariantViolated } from "../lib/assert.ts";

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
  return potsOfContributions(state.contributions, state.antesPosted, state.folded, state.config.anteTrimming);
}

/** sidePots from its parts: also read off a hand history at any point of the hand (chance-correction.ts). */
export function potsOfContributions(contributions: number[], antesPosted: number[], folded: boolean[], antesAreLive: boolean): Pot[] {
  const n = contributions.length;
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
  // Layers bottom up: each level is the smallest live contribution above the previous one, so every
  // contribution above the previous level reaches this one and adds the same (level - previous).
  for (let previous = 0; ; ) {
    let level = previous, above = 0;
    for (let p = 0; p < n; p++) {
      if (live[p] <= previous) continue;
      if (above === 0 || live[p] < level) level = live[p];
      above++;
    }
    if (above === 0) break;
    const amount = above * (level - previous);
    total += amount;
    const below = pots.length > 0 ? pots[pots.length - 1] : null;
    // Layers with the same players (e.g. a folded blind's chips) form one pot; only all-ins split pots.
    if (below !== null && reachedByTheSamePlayers(below.eligible, live, folded, level)) below.amount += amount;
    else pots.push({ amount, eligible: playersReaching(live, folded, level) });
    previous = level;
  }
  if (deadMoney > 0) {
    if (pots.length === 0) pots.push({ amount: 0, eligible: inHand(folded) });
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

/** Players still in the hand whose live contribution reaches `level`, ascending. */
function playersReaching(live: number[], folded: boolean[], level: number): number[] {
  const players: number[] = [];
  for (let p = 0; p < live.length; p++) if (live[p] >= level && !folded[p]) players.push(p);
  return players;
}

/** True when nobody still in reaches `level`, or exactly `members` do: the layer adds to the pot below. */
function reachedByTheSamePlayers(members: number[], live: number[], folded: boolean[], level: number): boolean {
  let count = 0, same = true;
  for (let p = 0; p < live.length; p++) {
    if (live[p] < level || folded[p]) continue;
    same = same && count < members.length && members[count] === p;
    count++;
  }
  return count === 0 || (same && count === members.length);
}

/** Player indices still in the hand, ascending. */
function inHand(folded: boolean[]): number[] {
  const players: number[] = [];
  for (let p = 0; p < folded.length; p++) if (!folded[p]) players.push(p);
  return players;
}

/** Where clockwise order starts in ascending player indices (or seats): the first one at or after `start`. */
export function firstClockwiseFrom(ascending: number[], start: number): number {
  let first = 0;
  while (first < ascending.length && ascending[first] < start) first++;
  return first === ascending.length ? 0 : first;
}

/**
 * The chips of the winner `clockwiseRank` places clockwise from the button's left (0 = nearest):
 * equal shares; the odd chips go one each to the winners nearest the button's left. Robert's Rules
 * of Poker (Bob Ciaffone), "Ties": "No player may receive more than one odd chip" and "in a button
 * game, the first hand clockwise from the button gets the odd chip" — so with a three-way split and
 * two odd chips, the first two winners from the button's left get one each.
 */
export function tieShare(amount: number, winnerCount: number, clockwiseRank: number): number {
  const share = Math.floor(amount / winnerCount);
  return clockwiseRank < amount - share * winnerCount ? share + 1 : share;
}

function payPot(state: HandState, index: number, pot: Pot, ascendingWinners: number[]): PotAward {
  const count = ascendingWinners.length;
  const shares = new Array<number>(count);
  const winnerSeats = new Array<number>(count);
  // Clockwise from the button's left: the odd chips go to the first winners in that order.
  for (let i = 0, k = firstClockwiseFrom(ascendingWinners, state.button + 1); i < count; i++, k = k + 1 === count ? 0 : k + 1) {
    const winner = ascendingWinners[k];
    shares[i] = tieShare(pot.amount, count, i);
    state.stacks[winner] += shares[i];
    winnerSeats[i] = state.seats[winner];
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
  const winners = [state.folded.indexOf(false)];
  const pots = sidePots(state);
  const awards: PotAward[] = [];
  for (let i = 0; i < pots.length; i++) awards.push(payPot(state, i, pots[i], winners));
  finishHand(state, awards, [], []);
}

/**
 * Showing order: the last bettor or raiser of the final betting round first, otherwise the first
 * player left of the button; then clockwise. A player shows only if the hand can still win or tie
 * some pot they are in (it is at least as good as the best hand shown among that pot's players);
 * otherwise it is mucked and stays hidden — unless a player is all in: TDA Rules (2024) Rule 16,
 * "Face Up for All-Ins": once a player is all in and all betting is complete, every hand is tabled.
 */
function firstToShow(state: HandState): number {
  const aggressor = state.lastAggressor;
  if (aggressor >= 0 && !state.folded[aggressor]) return aggressor;
  return state.button + 1 === state.seats.length ? 0 : state.button + 1;
}

export function settleShowdown(state: HandState): void {
  const pots = sidePots(state);
  const n = state.seats.length;
  const { board, holeCards, folded } = state;
  const values = new Array<number>(n);
  const b0 = board[0], b1 = board[1], b2 = board[2], b3 = board[3], b4 = board[4];
  for (let p = 0; p < n; p++) values[p] = folded[p] ? 0 : evaluate7(holeCards[2 * p], holeCards[2 * p + 1], b0, b1, b2, b3, b4);
  const bestShownInPot = new Array<number>(pots.length);
  for (let i = 0; i < pots.length; i++) bestShownInPot[i] = 0;
  const shown: ShownHand[] = [];
  const mucked: number[] = [];
  const faceUp = state.allInRunout || someoneAllIn(state);
  for (let i = 0, p = firstToShow(state); i < n; i++, p = p + 1 === n ? 0 : p + 1) {
    if (folded[p]) continue;
    const value = values[p], seat = state.seats[p];
    if (faceUp || canWinSomePot(pots, bestShownInPot, p, value)) {
      const cards = [holeCards[2 * p], holeCards[2 * p + 1]];
      shown.push({ seat, cards, value });
      state.events.push({ type: "show", seat, cards, value });
      for (let k = 0; k < pots.length; k++) if (value > bestShownInPot[k] && isMember(pots[k].eligible, p)) bestShownInPot[k] = value;
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

/** At least as good as the best hand shown so far in some pot the player is in. */
function canWinSomePot(pots: Pot[], bestShownInPot: number[], p: number, value: number): boolean {
  for (let k = 0; k < pots.length; k++) if (value >= bestShownInPot[k] && isMember(pots[k].eligible, p)) return true;
  return false;
}

function bestHandsAmong(players: number[], values: number[]): number[] {
  let best = 0;
  for (let i = 0; i < players.length; i++) if (values[players[i]] > best) best = values[players[i]];
  const winners: number[] = [];
  for (let i = 0; i < players.length; i++) if (values[players[i]] === best) winners.push(players[i]);
  return winners;
}
