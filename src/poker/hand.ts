/**
 * No-limit hold'em hand state machine (SPEC §6, TDA rules), as pure functions over a plain-data
 * HandState. applyAction never mutates its input (it clones, ~O(players + events) shallow copies);
 * applyActionInPlace mutates for simulations that do not keep history. Dealing, all-in run-outs,
 * showdown and pot awards happen inside the transition that closes the betting.
 */
import type { ApplyResult, HandConfig, HandState, LegalActions, PlayerAction, StartHandOptions, Street } from "./hand-types.ts";
import { assertChipsConserved, assertPlayerChipsConserved } from "./invariants.ts";
import { awardPotsUncontested, settleShowdown } from "./showdown.ts";
import { antesOf, cardsDealtAtMost, validateStart } from "./start-validation.ts";

export type { StartHandOptions } from "./hand-types.ts";

function nextStreet(street: Street): Street {
  switch (street) {
    case "preflop": return "flop";
    case "flop": return "turn";
    case "turn": return "river";
    default: return "showdown";
  }
}

function nextPlayer(state: HandState, p: number): number {
  return (p + 1) % state.seats.length;
}

/** A forced bet a player cannot cover is posted all in. */
function postForcedChips(state: HandState, p: number, amount: number): number {
  const posted = Math.min(amount, state.stacks[p]);
  state.stacks[p] -= posted;
  state.contributions[p] += posted;
  return posted;
}

function postAntes(state: HandState): void {
  const antes = state.config.antes;
  for (let p = 0; p < antes.length; p++) {
    if (antes[p] <= 0) continue;
    const posted = postForcedChips(state, p, antes[p]);
    state.antesPosted[p] = posted;
    state.events.push({ type: "ante", seat: state.seats[p], amount: posted, allIn: state.stacks[p] === 0 });
  }
}

function postBlind(state: HandState, p: number, blind: "small" | "big", amount: number): void {
  const posted = postForcedChips(state, p, amount);
  state.bets[p] = posted;
  state.events.push({ type: "blind", seat: state.seats[p], blind, amount: posted, allIn: state.stacks[p] === 0 });
}

function postBlinds(state: HandState): void {
  postBlind(state, state.smallBlindPlayer, "small", state.config.smallBlind);
  postBlind(state, state.bigBlindPlayer, "big", state.config.bigBlind);
  // Robert's Rules of Poker (Ciaffone), Button and Blind Use, rule 1: the bring-in and raise sizes
  // "remain the same even when the player in the blind does not have enough chips to post the full
  // amount" — a big blind posted short still leaves the full big blind to call and raise from.
  state.currentBet = state.config.bigBlind;
  state.lastFullRaise = state.config.minBet;
}

function dealHoleCards(state: HandState): void {
  const n = state.seats.length;
  const first = nextPlayer(state, state.button);
  for (let round = 0; round < 2; round++) {
    for (let i = 0, p = first; i < n; i++, p = p + 1 === n ? 0 : p + 1) state.holeCards[2 * p + round] = state.deck[state.deckPosition++];
  }
  for (let p = 0; p < n; p++) {
    state.events.push({ type: "hole_cards", seat: state.seats[p], cards: [state.holeCards[2 * p], state.holeCards[2 * p + 1]] });
  }
}

export function startHand(options: StartHandOptions): HandState {
  const button = validateStart(options);
  const n = options.seats.length;
  // Blinds sit left of the button; heads-up the button itself posts the small blind.
  const smallBlindPlayer = n === 2 ? button : button + 1 === n ? 0 : button + 1;
  const bigBlindPlayer = smallBlindPlayer + 1 === n ? 0 : smallBlindPlayer + 1;
  // No antes (the usual case): zeros, filled in the loop below with the other per-player arrays.
  const antes = options.ante === undefined ? new Array<number>(n) : antesOf(options);
  const config: HandConfig = {
    smallBlind: options.smallBlind,
    bigBlind: options.bigBlind,
    minBet: options.minBet ?? options.bigBlind,
    antes,
    anteTrimming: options.anteTrimming ?? true,
  };
  // One allocation site per array, so the JIT profiles each array's element kind separately.
  const stacks = new Array<number>(n), seats = new Array<number>(n), bets = new Array<number>(n), contributions = new Array<number>(n), antesPosted = new Array<number>(n);
  const folded = new Array<boolean>(n), acted = new Array<boolean>(n), holeCards = new Array<number>(2 * n);
  for (let p = 0; p < n; p++) {
    stacks[p] = options.seats[p].stack;
    seats[p] = options.seats[p].seatIndex;
    bets[p] = 0;
    contributions[p] = 0;
    antesPosted[p] = 0;
    if (options.ante === undefined) antes[p] = 0;
    folded[p] = false;
    acted[p] = false;
    holeCards[2 * p] = 0;
    holeCards[2 * p + 1] = 0;
  }
  const state: HandState = {
    config,
    seats,
    button,
    smallBlindPlayer,
    bigBlindPlayer,
    startingStacks: stacks.slice(),
    stacks,
    bets,
    contributions,
    antesPosted,
    folded,
    acted,
    holeCards,
    board: [],
    deck: options.deck.slice(0, cardsDealtAtMost(n)),
    deckPosition: 0,
    street: "preflop",
    actor: -1,
    currentBet: 0,
    lastFullRaise: config.minBet,
    lastAggressor: -1,
    allInRunout: false,
    finished: false,
    result: null,
    events: [],
  };
  postAntes(state);
  postBlinds(state);
  dealHoleCards(state);
  // First to act is the seat after the big blind: heads-up that is the button (small blind).
  advanceFrom(state, bigBlindPlayer);
  assertChipsConserved(state);
  return state;
}

function playersWithChipsInHand(state: HandState): number {
  let count = 0;
  for (let p = 0; p < state.seats.length; p++) if (!state.folded[p] && state.stacks[p] > 0) count++;
  return count;
}

/** WSOP 96 / 96-a: a player who already acted may raise again only when facing at least a full raise in total. */
function raiseReopenedFor(state: HandState, p: number): boolean {
  return !state.acted[p] || state.currentBet - state.bets[p] >= state.lastFullRaise;
}

/** A raise means something only if another player in the hand could put in more than the current bet. */
function raiseCanBeAnswered(state: HandState, p: number): boolean {
  const { folded, stacks, bets, currentBet } = state;
  for (let q = 0; q < folded.length; q++) {
    if (q !== p && !folded[q] && stacks[q] + bets[q] > currentBet) return true;
  }
  return false;
}

function canRaise(state: HandState, p: number): boolean {
  return state.stacks[p] > state.currentBet - state.bets[p] && raiseReopenedFor(state, p) && raiseCanBeAnswered(state, p);
}

/** Raise-to bounds for a player who can raise: a full raise, or all in when that is less. */
function minRaiseTo(state: HandState, p: number): number {
  return Math.min(state.currentBet + state.lastFullRaise, state.stacks[p] + state.bets[p]);
}

function maxRaiseTo(state: HandState, p: number): number {
  return state.stacks[p] + state.bets[p];
}

export function legalActions(state: HandState): LegalActions | null {
  if (state.finished || state.actor < 0) return null;
  const p = state.actor;
  const toCall = state.currentBet - state.bets[p];
  const raiseAllowed = canRaise(state, p);
  return {
    actor: state.seats[p],
    canFold: true,
    canCheck: toCall === 0,
    callAmount: Math.min(toCall, state.stacks[p]),
    canRaise: raiseAllowed,
    minRaiseTo: raiseAllowed ? minRaiseTo(state, p) : 0,
    maxRaiseTo: raiseAllowed ? maxRaiseTo(state, p) : 0,
  };
}

function putChipsIn(state: HandState, p: number, amount: number): void {
  state.stacks[p] -= amount;
  state.bets[p] += amount;
  state.contributions[p] += amount;
}

/** The same rules as legalActions, without building its result; null when legal, else the reason. */
function illegalActionReason(state: HandState, action: PlayerAction): string | null {
  if (state.finished) return "the hand is finished";
  const p = state.actor;
  if (p < 0) return "no player is to act";
  switch (action?.type) {
    case "fold":
    case "call":
      return null;
    case "check": {
      const toCall = state.currentBet - state.bets[p];
      return toCall === 0 ? null : `cannot check: ${Math.min(toCall, state.stacks[p])} to call`;
    }
    case "raise": {
      if (!canRaise(state, p)) return "raising is not allowed now (call or fold)";
      const to = action.amount;
      if (!Number.isSafeInteger(to)) return "raise needs a whole-chip amount (the street total to raise to)";
      const low = minRaiseTo(state, p), high = maxRaiseTo(state, p);
      if (to! < low || to! > high) return `raise must be to between ${low} and ${high}`;
      return null;
    }
    default:
      return `unknown action type "${action?.type}"`;
  }
}

function applyPlayerAction(state: HandState, action: PlayerAction): void {
  const p = state.actor;
  const seat = state.seats[p];
  state.acted[p] = true;
  if (action.type === "fold") {
    state.folded[p] = true;
    state.events.push({ type: "action", seat, action: "fold", amount: 0, allIn: false });
  } else if (action.type === "raise") {
    const to = action.amount!;
    const increment = to - state.currentBet;
    // Only a full raise resets the minimum raise and reopens the betting (WSOP 96).
    if (increment >= state.lastFullRaise) state.lastFullRaise = increment;
    putChipsIn(state, p, to - state.bets[p]);
    state.currentBet = to;
    state.lastAggressor = p;
    state.events.push({ type: "action", seat, action: "raise", amount: to, allIn: state.stacks[p] === 0 });
  } else {
    const amount = Math.min(state.currentBet - state.bets[p], state.stacks[p]);
    putChipsIn(state, p, amount);
    const type = amount === 0 ? "check" : "call";
    state.events.push({ type: "action", seat, action: type, amount, allIn: state.stacks[p] === 0 });
  }
}

/** The part of the highest bet that nobody matched goes back to its owner. */
function returnUncalledBet(state: HandState): void {
  let top = -1, highest = 0, second = 0;
  for (let p = 0; p < state.seats.length; p++) {
    const bet = state.bets[p];
    if (bet > highest) {
      second = highest;
      highest = bet;
      top = p;
    } else if (bet > second) second = bet;
  }
  if (top < 0 || highest === second) return;
  const excess = highest - second;
  state.bets[top] -= excess;
  state.contributions[top] -= excess;
  state.stacks[top] += excess;
  state.events.push({ type: "uncalled_returned", seat: state.seats[top], amount: excess });
}

function dealNextStreet(state: HandState): void {
  const street = nextStreet(state.street);
  state.street = street;
  const count = street === "flop" ? 3 : street === "showdown" ? 0 : 1;
  if (count === 0) return;
  const deck = state.deck, at = state.deckPosition + 1; // after the burn
  const cards = count === 3 ? [deck[at], deck[at + 1], deck[at + 2]] : [deck[at]];
  state.deckPosition = at + count;
  for (let i = 0; i < count; i++) state.board.push(cards[i]);
  state.events.push({ type: "street", street, cards, board: state.board.slice() });
}

function resetBettingRound(state: HandState): void {
  for (let p = 0; p < state.seats.length; p++) {
    state.bets[p] = 0;
    state.acted[p] = false;
  }
  state.currentBet = 0;
  state.lastFullRaise = state.config.minBet;
}

/** Betting is closed: deal on, and either open the next round or run the board out to showdown. */
function closeBettingRound(state: HandState): void {
  returnUncalledBet(state);
  for (;;) {
    resetBettingRound(state);
    if (state.street === "river") return settleShowdown(state);
    dealNextStreet(state);
    if (playersWithChipsInHand(state) >= 2) {
      state.lastAggressor = -1;
      assertChipsConserved(state);
      return advanceFrom(state, state.button);
    }
    state.allInRunout = true;
  }
}

/**
 * Finds the next player to act after player `from`, or closes the betting round. A player owes a
 * decision when in the hand with chips and either facing a bet or yet to act on this street; one
 * pass clockwise finds the first of each and counts who is left.
 */
function advanceFrom(state: HandState, from: number): void {
  const { folded, stacks, bets, acted, currentBet } = state;
  const n = folded.length;
  let inHand = 0, withChips = 0, firstFacingBet = -1, firstYetToAct = -1, facingBet = 0, highestAllInBet = 0;
  for (let i = 1, p = from + 1 === n ? 0 : from + 1; i <= n; i++, p = p + 1 === n ? 0 : p + 1) {
    if (folded[p]) continue;
    inHand++;
    if (stacks[p] === 0) {
      if (bets[p] > highestAllInBet) highestAllInBet = bets[p];
      continue;
    }
    withChips++;
    if (bets[p] < currentBet) {
      if (firstFacingBet < 0) {
        firstFacingBet = i;
        facingBet = bets[p];
      }
    } else if (!acted[p] && firstYetToAct < 0) firstYetToAct = i;
  }
  if (inHand === 1) {
    state.actor = -1;
    returnUncalledBet(state);
    return awardPotsUncontested(state);
  }
  if (withChips < 2) {
    // With nobody left to bet against, a player with nothing to call has no decision to make,
    // and neither has one whose bet already covers every opponent (all of them all in): the
    // "bet" it faces is only the full big blind a short all-in blind leaves to call.
    firstYetToAct = -1;
    if (firstFacingBet > 0 && facingBet >= highestAllInBet) firstFacingBet = -1;
  }
  const next = firstFacingBet < 0 ? firstYetToAct : firstYetToAct < 0 ? firstFacingBet : Math.min(firstFacingBet, firstYetToAct);
  if (next > 0) {
    state.actor = from + next < n ? from + next : from + next - n; // next ≤ n
    return;
  }
  state.actor = -1;
  closeBettingRound(state);
}

export function applyActionInPlace(state: HandState, action: PlayerAction): ApplyResult {
  const reason = illegalActionReason(state, action);
  if (reason !== null) return { ok: false, reason };
  const p = state.actor;
  applyPlayerAction(state, action);
  advanceFrom(state, p);
  assertPlayerChipsConserved(state, p);
  return { ok: true, state };
}

/** Pure: the input state is left untouched. */
export function applyAction(state: HandState, action: PlayerAction): ApplyResult {
  const reason = illegalActionReason(state, action);
  if (reason !== null) return { ok: false, reason };
  return applyActionInPlace(cloneHand(state), action);
}

/** Copies every mutable part; events and results are never mutated after creation, so they are shared. */
export function cloneHand(state: HandState): HandState {
  return {
    ...state,
    config: state.config,
    seats: state.seats,
    startingStacks: state.startingStacks,
    deck: state.deck,
    stacks: state.stacks.slice(),
    bets: state.bets.slice(),
    contributions: state.contributions.slice(),
    antesPosted: state.antesPosted.slice(),
    folded: state.folded.slice(),
    acted: state.acted.slice(),
    holeCards: state.holeCards.slice(),
    board: state.board.slice(),
    events: state.events.slice(),
  };
}

export function seatToAct(state: HandState): number {
  return state.actor < 0 ? -1 : state.seats[state.actor];
}
