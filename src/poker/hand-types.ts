/**
 * Plain-data shapes of a hand. A HandState holds only numbers, booleans, strings, arrays and
 * plain objects, so it can be JSON-serialised, persisted and restored as is.
 *
 * Players are indexed 0..n-1 in table order (the order of `seats` given to startHand); every
 * field that the host sees (events, legal actions, results) names TABLE SEATS instead.
 */

export type Street = "preflop" | "flop" | "turn" | "river" | "showdown";
export type ActionType = "fold" | "check" | "call" | "raise";

export interface PlayerAction {
  type: ActionType;
  /** For "raise": the street total the player's bet becomes (raise-to). Ignored otherwise. */
  amount?: number;
}

export interface HandConfig {
  smallBlind: number;
  bigBlind: number;
  /** Smallest opening bet and smallest raise increment; the big blind unless a PHH file says otherwise. */
  minBet: number;
  /** Ante owed by each player (table order). */
  antes: number[];
  /**
   * true: antes count as each poster's contribution when pots are layered, so an excess ante
   * nobody matched goes back (pokerkit's ante_trimming_status). false: antes are dead money in
   * the main pot (big-blind-ante rooms).
   */
  anteTrimming: boolean;
}

export type HandEvent =
  | { type: "ante"; seat: number; amount: number; allIn: boolean }
  | { type: "blind"; seat: number; blind: "small" | "big"; amount: number; allIn: boolean }
  | { type: "hole_cards"; seat: number; cards: number[] }
  | { type: "action"; seat: number; action: ActionType; amount: number; allIn: boolean }
  | { type: "street"; street: Street; cards: number[]; board: number[] }
  | { type: "uncalled_returned"; seat: number; amount: number }
  | { type: "show"; seat: number; cards: number[]; value: number }
  | { type: "muck"; seat: number }
  | { type: "pot_awarded"; pot: number; amount: number; eligible: number[]; winners: number[]; shares: number[] }
  | { type: "hand_finished"; stacks: number[] };

export interface PotAward {
  amount: number;
  /** Seats still in the hand that contributed to this layer. */
  eligible: number[];
  winners: number[];
  /** Chips won by each winner, same order as winners (odd chips first to the left of the button). */
  shares: number[];
}

export interface ShownHand {
  seat: number;
  cards: number[];
  /** Evaluator value, higher is better. */
  value: number;
}

export interface HandResult {
  /** Final stacks, aligned with HandState.seats. */
  stacks: number[];
  pots: PotAward[];
  /** Hands tabled at showdown, in showing order; empty when the hand ended by folds. */
  shown: ShownHand[];
  /** Seats that reached showdown but mucked a losing hand (their cards stay hidden). */
  mucked: number[];
  /** true when the hand ended by everyone else folding. */
  wonWithoutShowdown: boolean;
}

export interface HandState {
  config: HandConfig;
  /** Table seat of each player. */
  seats: number[];
  /** Player index of the button. */
  button: number;
  smallBlindPlayer: number;
  bigBlindPlayer: number;
  startingStacks: number[];
  /** Chips behind. */
  stacks: number[];
  /** Chips put in on the current street. */
  bets: number[];
  /** Chips put in over the whole hand (antes, blinds and bets; uncalled chips taken back out). */
  contributions: number[];
  antesPosted: number[];
  folded: boolean[];
  /** Has acted on this street (blinds do not count as acting). */
  acted: boolean[];
  /** Two per player: holeCards[2p], holeCards[2p + 1]. */
  holeCards: number[];
  board: number[];
  /** The cards this hand can deal, in dealing order (the rest of the deck it was given is not kept). */
  deck: number[];
  deckPosition: number;
  street: Street;
  /** Player index to act, -1 when nobody is. */
  actor: number;
  /** Highest bet on this street. */
  currentBet: number;
  /** Size of the last full bet or raise on this street: the minimum raise increment. */
  lastFullRaise: number;
  /** Player index of the last bet or raise on the latest betting street, -1 if none. */
  lastAggressor: number;
  /** Set when the rest of the board is dealt with no betting possible (all in). */
  allInRunout: boolean;
  finished: boolean;
  result: HandResult | null;
  events: HandEvent[];
}

export interface LegalActions {
  /** Table seat of the player to act. */
  actor: number;
  canFold: boolean;
  canCheck: boolean;
  /** Chips a call adds (capped by the stack); 0 when checking. */
  callAmount: number;
  canRaise: boolean;
  /** Raise-to bounds (street totals). When only a short all-in is possible both equal it. */
  minRaiseTo: number;
  maxRaiseTo: number;
}

export type ApplyResult = { ok: true; state: HandState } | { ok: false; reason: string };

export interface StartHandOptions {
  /** Occupied seats in table order, each with chips. */
  seats: { seatIndex: number; stack: number }[];
  buttonSeatIndex: number;
  smallBlind: number;
  bigBlind: number;
  /** Uniform ante, or one per seat (same order as seats). */
  ante?: number | number[];
  anteTrimming?: boolean;
  minBet?: number;
  /** A shuffled deck (≥ 2 × players + 8 cards): hole cards round-robin from the small blind, then burn-and-turn. */
  deck: number[];
}
