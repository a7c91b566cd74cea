import type { ActionMessage, ActionName, ActionRequestMessage, Card, SeatState, Street, TableConfig } from "./messages.ts";

export type Position = "button" | "small_blind" | "big_blind" | "early" | "middle" | "late";

/** The legal actions of a request: `state.legal.has("raise")`. */
export interface LegalActions {
  has(action: ActionName): boolean;
  readonly list: readonly ActionName[];
}

/** What decide() gets: the action_request, made friendly, plus what the SDK tracked of the hand. */
export interface DecisionState {
  requestId: string;
  botId: string | null;
  tableId: string;
  matchId: string | null;
  handNumber: number;
  street: Street;
  holeCards: [Card, Card];
  board: Card[];
  /** Chips in the pot, this street's bets included. */
  pot: number;
  /** Chips a call adds; 0 when you can check. */
  toCall: number;
  /** Raise bounds as street totals; null when you may not raise. */
  minRaiseTo: number | null;
  maxRaiseTo: number | null;
  legal: LegalActions;
  /** Your seat, chips behind, bet on this street, chips put in this hand. */
  yourSeat: number;
  stack: number;
  bet: number;
  committed: number;
  seats: SeatState[];
  /** Seats still in the hand other than yours. */
  opponents: SeatState[];
  button: number | null;
  isButton: boolean;
  position: Position | null;
  smallBlind: number | null;
  bigBlind: number | null;
  config: TableConfig | null;
  deadline: Date;
  timeBankMs: number;
  /** Every public action of this hand so far (blinds included), oldest first. */
  history: ActionMessage[];
  raw: ActionRequestMessage;
}

/** What the SDK remembers between messages (filled from match_started, hand_started, snapshot…). */
export interface HandContext {
  botId: string | null;
  matchId: string | null;
  config: TableConfig | null;
  handNumber: number;
  button: number | null;
  history: ActionMessage[];
}

export function legalSet(list: readonly ActionName[]): LegalActions {
  const set = new Set(list);
  return { has: (action) => set.has(action), list };
}

/** Position of `seat` among `inHand` seats (table order) given the button. */
export function positionOf(inHand: number[], button: number | null, seat: number): Position | null {
  if (button === null || !inHand.includes(seat)) return null;
  const sorted = [...inHand].sort((a, b) => a - b);
  const start = sorted.findIndex((s) => s > button);
  const order = start < 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)]; // first left of the button … button last
  const n = order.length;
  const i = order.indexOf(seat);
  if (seat === button) return "button";
  if (n === 2) return "big_blind";
  if (i === 0) return "small_blind";
  if (i === 1) return "big_blind";
  const rest = n - 3; // seats between the big blind and the button
  const k = i - 2;
  if (k >= rest - 1 && rest >= 2) return "late";
  return k < Math.ceil((rest - 1) / 2) || rest === 1 ? "early" : "middle";
}

export function decisionState(request: ActionRequestMessage, context: HandContext): DecisionState {
  const me = request.seats.find((s) => s.seat === request.yourSeat);
  const sameHand = context.handNumber === request.handNumber;
  const button = sameHand ? context.button : null;
  return {
    requestId: request.requestId,
    botId: context.botId,
    tableId: request.tableId,
    matchId: context.matchId,
    handNumber: request.handNumber,
    street: request.street,
    holeCards: request.holeCards,
    board: request.board,
    pot: request.pot,
    toCall: request.toCall,
    minRaiseTo: request.minRaiseTo,
    maxRaiseTo: request.maxRaiseTo,
    legal: legalSet(request.legalActions),
    yourSeat: request.yourSeat,
    stack: me?.stack ?? 0,
    bet: me?.bet ?? 0,
    committed: me?.committed ?? 0,
    seats: request.seats,
    opponents: request.seats.filter((s) => s.seat !== request.yourSeat && !s.folded),
    button,
    isButton: button === request.yourSeat,
    position: positionOf(request.seats.map((s) => s.seat), button, request.yourSeat),
    smallBlind: context.config?.smallBlind ?? null,
    bigBlind: context.config?.bigBlind ?? null,
    config: context.config,
    deadline: new Date(request.deadline),
    timeBankMs: request.timeBankMs,
    history: sameHand ? [...context.history] : [],
    raw: request,
  };
}
