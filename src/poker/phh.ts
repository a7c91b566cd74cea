/**
 * PHH (Poker Hand History, https://phh.readthedocs.io) for no-limit hold'em ("NT"):
 * export a hand the engine played, and replay a PHH hand through the engine.
 * PHH numbers players by position: p1 = first seat left of the button (small blind) … pn = button;
 * heads-up p1 is the big blind and the blind/ante lists are given reversed (small blind first).
 */
import { parse, stringify } from "smol-toml";
import { formatCards, formatCardsOrUnknown, fullDeck, parseCards } from "@poker-bots/core/cards";
import { evaluate7 } from "@poker-bots/core/evaluator";
import { applyActionInPlace, legalActions, startHand } from "./hand.ts";
import type { HandState, PlayerAction } from "./hand-types.ts";
import { PhhActorQueue } from "./phh-actor-queue.ts";

export interface PhhHand {
  variant: string;
  ante_trimming_status?: boolean;
  antes: number[];
  blinds_or_straddles: number[];
  min_bet: number;
  starting_stacks: number[];
  actions: string[];
  finishing_stacks?: number[];
  players?: string[];
  [field: string]: unknown;
}

export interface ReplayResult {
  /** Final stacks in PHH player order, in the file's units. */
  finishingStacks: number[];
  state: HandState;
}

/** What exporting needs of a hand: a stored history can supply it without the deck or bets. */
export type ExportableHand = Pick<HandState, "seats" | "button" | "config" | "startingStacks" | "stacks" | "events" | "finished">;

/** Player indices (table order) in PHH order p1..pn: from the seat left of the button round to the button. */
export function playersInPhhOrder(state: Pick<HandState, "seats" | "button">): number[] {
  const n = state.seats.length;
  return Array.from({ length: n }, (_, i) => (state.button + 1 + i) % n);
}

/** Heads-up PHH lists forced bets small blind first, i.e. p2 before p1. */
function byPosition<T>(values: T[]): T[] {
  return values.length === 2 ? [values[1], values[0]] : values;
}

export interface ExportOptions {
  players?: string[];
  [field: string]: unknown;
}

export function exportPhh(state: ExportableHand, extra: ExportOptions = {}): string {
  const order = playersInPhhOrder(state);
  const n = order.length;
  const blinds = new Array<number>(n).fill(0);
  blinds[0] = state.config.smallBlind;
  blinds[1] = state.config.bigBlind;
  const document: Record<string, unknown> = {
    variant: "NT",
    ante_trimming_status: state.config.anteTrimming,
    antes: byPosition(order.map((p) => state.config.antes[p])),
    blinds_or_straddles: blinds,
    min_bet: state.config.minBet,
    starting_stacks: order.map((p) => state.startingStacks[p]),
    actions: phhActions(state),
    seats: order.map((p) => state.seats[p] + 1),
    ...extra,
  };
  if (state.finished) document.finishing_stacks = order.map((p) => state.stacks[p]);
  return stringify(document) + "\n";
}

/** The street after which no player acted again: the board dealt after an all-in. */
function runOutStart(events: ExportableHand["events"]): number {
  let lastAction = -1, shows = false;
  events.forEach((event, i) => {
    if (event.type === "action") lastAction = i;
    if (event.type === "show" || event.type === "muck") shows = true;
  });
  return shows ? events.findIndex((event, i) => i > lastAction && event.type === "street") : -1;
}

/**
 * The hand's actions as a strict reader replays them: the checks the engine needs no decision
 * for (nobody left to bet against a player) are written out as `cc`, and after an all-in the
 * hands are tabled (TDA Rule 16) before the rest of the board is dealt.
 */
function phhActions(state: ExportableHand): string[] {
  const order = playersInPhhOrder(state);
  const n = order.length;
  const indexOfSeat = new Map(order.map((p, i) => [state.seats[p], i]));
  const player = (seat: number) => indexOfSeat.get(seat)!;
  const label = (seat: number) => `p${player(seat) + 1}`;
  const queue = new PhhActorQueue(order.map((p) => state.startingStacks[p]));
  const tabling = state.events.flatMap((e) => (e.type === "show" ? [`${label(e.seat)} sm ${formatCards(e.cards)}`] : e.type === "muck" ? [`${label(e.seat)} sm`] : []));
  const runOut = runOutStart(state.events);
  const actions: string[] = [];
  const closeBetting = () => {
    for (const i of queue.closeBetting()) actions.push(`p${i + 1} cc`);
  };
  const holeCards = new Map<number, string>();
  let tabled = false;
  state.events.forEach((event, index) => {
    switch (event.type) {
      case "ante":
      case "blind":
        queue.post(player(event.seat), event.amount, event.type === "blind");
        break;
      case "hole_cards":
        holeCards.set(event.seat, formatCardsOrUnknown(event.cards));
        if (holeCards.size === n) {
          for (const p of order) actions.push(`d dh ${label(state.seats[p])} ${holeCards.get(state.seats[p])}`);
          queue.beginBetting();
        }
        break;
      case "action": {
        const verb = event.action === "fold" ? "f" : event.action === "raise" ? "cbr" : "cc";
        queue.act(player(event.seat), verb, event.amount);
        actions.push(verb === "cbr" ? `${label(event.seat)} cbr ${event.amount}` : `${label(event.seat)} ${verb}`);
        break;
      }
      case "uncalled_returned":
        queue.uncalledReturned(player(event.seat), event.amount);
        break;
      case "street":
        closeBetting();
        if (index === runOut) {
          actions.push(...tabling);
          tabled = true;
        }
        actions.push(`d db ${formatCards(event.cards)}`);
        queue.beginBetting();
        break;
      case "show":
      case "muck":
        if (tabled) break;
        closeBetting();
        actions.push(...tabling);
        tabled = true;
        break;
    }
  });
  return actions;
}

/** One hand (.phh). */
export function parsePhh(text: string): PhhHand {
  return parse(text) as unknown as PhhHand;
}

/** A .phhs file (hands as tables like [8]) or a single .phh; returns the hands in file order. */
export function parsePhhs(text: string): { id: string; hand: PhhHand }[] {
  const document = parse(text) as Record<string, unknown>;
  if ("variant" in document) return [{ id: "0", hand: document as unknown as PhhHand }];
  return Object.entries(document).map(([id, hand]) => ({ id, hand: hand as PhhHand }));
}

function decimals(x: number): number {
  const text = String(x);
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Power of ten that makes every amount in the file a whole number of chips (cents in online files). */
function chipScale(hand: PhhHand): number {
  const amounts = [...hand.starting_stacks, ...hand.antes, ...hand.blinds_or_straddles, hand.min_bet];
  for (const action of hand.actions) {
    const match = /^p\d+ cbr (\S+)$/.exec(action.trim());
    if (match) amounts.push(Number(match[1]));
  }
  return 10 ** Math.max(0, ...amounts.map(decimals));
}

interface ParsedAction {
  player: number;
  verb: string;
  argument: string;
}

function parseAction(text: string): ParsedAction {
  const parts = text.trim().split(/\s+/);
  if (parts[0] === "d") return { player: parts[1] === "dh" ? Number(parts[2].slice(1)) - 1 : -1, verb: parts[1], argument: parts[parts[1] === "dh" ? 3 : 2] ?? "" };
  if (!/^p\d+$/.test(parts[0])) throw new Error(`unreadable PHH action "${text}"`);
  return { player: Number(parts[0].slice(1)) - 1, verb: parts[1], argument: parts[2] ?? "" };
}

function knownCards(text: string): number[] | null {
  return text.includes("?") ? null : parseCards(text);
}

/**
 * Lays out a deck so the engine deals exactly the file's cards; unknown cards are filled with
 * unused ones. A player whose unknown cards were mucked at showdown lost there, so their filler
 * is the weakest hand left with the board (never better than the hidden one): the engine mucks
 * it too and pays the pots the file paid.
 */
function deckForReplay(n: number, actions: ParsedAction[]): number[] {
  const deck = new Array<number>(52).fill(-1);
  const boardSlots = [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7];
  let boardDealt = 0;
  const placeHole = (player: number, cards: number[] | null) => {
    if (cards) cards.forEach((card, round) => (deck[round * n + player] = card));
  };
  for (const action of actions) {
    if (action.verb === "dh") placeHole(action.player, knownCards(action.argument));
    else if (action.verb === "db") for (const card of parseCards(action.argument)) deck[boardSlots[boardDealt++]] = card;
  }
  for (const action of actions) {
    if (action.verb === "sm" && action.argument && deck[action.player] < 0) placeHole(action.player, knownCards(action.argument));
  }
  const used = new Set(deck.filter((c) => c >= 0));
  if (used.size !== deck.filter((c) => c >= 0).length) throw new Error("PHH file deals the same card twice");
  const unused = fullDeck().filter((c) => !used.has(c));
  const board = boardSlots.map((slot) => deck[slot]);
  for (const action of actions) {
    const mucked = action.argument === "" || action.argument.includes("?");
    if (action.verb !== "sm" || !mucked || deck[action.player] >= 0 || board.includes(-1)) continue;
    const [a, b] = weakestPair(unused, board);
    placeHole(action.player, [unused[a], unused[b]]);
    unused.splice(b, 1);
    unused.splice(a, 1);
  }
  return deck.map((card) => (card >= 0 ? card : unused.shift()!));
}

/** Indices (a < b) into `cards` of the two that make the weakest seven-card hand with the board. */
function weakestPair(cards: number[], board: number[]): [number, number] {
  let best: [number, number] = [0, 1];
  let lowest = Infinity;
  for (let a = 0; a < cards.length; a++) {
    for (let b = a + 1; b < cards.length; b++) {
      const value = evaluate7(cards[a], cards[b], board[0], board[1], board[2], board[3], board[4]);
      if (value < lowest) [lowest, best] = [value, [a, b]];
    }
  }
  return best;
}

function engineAction(verb: string, argument: string, scale: number): PlayerAction {
  if (verb === "f") return { type: "fold" };
  if (verb === "cc") return { type: "call" };
  if (verb === "cbr") return { type: "raise", amount: Math.round(Number(argument) * scale) };
  throw new Error(`unsupported PHH player action "${verb}"`);
}

/**
 * Hand-transcribed files sometimes omit a fold (2019/42/3/00-01-07 never folds the button).
 * Like pokerkit and the reference simulator, a player the file skips while facing a bet is
 * folded; skipping a player who could check is an error.
 */
function foldSkippedPlayers(state: HandState, player: number, where: string): void {
  while (state.actor >= 0 && state.actor !== player) {
    const legal = legalActions(state)!;
    if (legal.canCheck) throw new Error(`${where}: the engine expects p${state.actor + 1} to act`);
    applyActionInPlace(state, { type: "fold" });
  }
  if (state.actor !== player) throw new Error(`${where}: p${player + 1} is not to act`);
}

export function replayPhh(hand: PhhHand): ReplayResult {
  if (hand.variant !== "NT") throw new Error(`only no-limit hold'em ("NT") is supported, not "${hand.variant}"`);
  const n = hand.starting_stacks.length;
  const scale = chipScale(hand);
  const chips = (x: number) => Math.round(x * scale);
  const forced = hand.blinds_or_straddles.filter((b) => b > 0);
  if (forced.length > 2 || hand.blinds_or_straddles.slice(2).some((b) => b > 0)) throw new Error("straddles are not supported");
  const actions = hand.actions.map(parseAction);
  const state = startHand({
    seats: hand.starting_stacks.map((stack, p) => ({ seatIndex: p, stack: chips(stack) })),
    buttonSeatIndex: n - 1,
    smallBlind: chips(hand.blinds_or_straddles[0] ?? 0),
    bigBlind: chips(hand.blinds_or_straddles[1] ?? 0),
    ante: byPosition(hand.antes).map(chips),
    anteTrimming: hand.ante_trimming_status ?? false,
    minBet: chips(hand.min_bet),
    deck: deckForReplay(n, actions),
  });
  let boardChecked = 0;
  for (const [i, action] of actions.entries()) {
    const where = `PHH action ${i + 1} "${hand.actions[i]}"`;
    if (action.verb === "dh" || action.verb === "sm") continue;
    if (action.verb === "db") {
      boardChecked += parseCards(action.argument).length;
      if (state.board.length < boardChecked) throw new Error(`${where}: the engine has not dealt this street yet (betting still open)`);
      continue;
    }
    // A check the engine needs no decision for (nobody left to bet against the player).
    if (action.verb === "cc" && state.actor < 0) continue;
    foldSkippedPlayers(state, action.player, where);
    const applied = applyActionInPlace(state, engineAction(action.verb, action.argument, scale));
    if (!applied.ok) throw new Error(`${where}: ${applied.reason}`);
  }
  if (!state.finished) throw new Error("PHH hand ended before the engine finished the hand");
  return { finishingStacks: state.stacks.map((stack) => stack / scale), state };
}
