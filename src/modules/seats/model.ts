import type { ActionRequestMessage } from "@poker-bots/protocol";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";
import type { Clock } from "../../lib/clock";
import type { TimeBankPolicy } from "./rules";

/**
 * A seat: whatever plays one place at a table. Every kind is asked through decide() (decide.ts),
 * which owns the deadline and time bank, the legality check, the no-answer fallback and the failure
 * rule; a kind only says how the question reaches its bot and how the answer comes back.
 *
 * - `built-in`: a strategy of this service, decided at once (trusted: the runner's invariant checks it).
 * - `remote`: a bot behind a socket of the gateway (remote.ts). A WebSocket, an agent over MCP
 *   (mcp/service.ts: its inbox is the socket) and an ACPC connection (acpc/service.ts: its TCP line
 *   is) are three transports of this one kind: same request, same clock, same fallback.
 * - `hosted`: uploaded code run in the sandbox here (hosted.ts), on its CPU-time budget.
 */
export type Seat = BuiltInSeat | AskedSeat;

export interface BuiltInSeat {
  readonly kind: "built-in";
  readonly botId: string;
  /** The strategy's action: legal by construction. */
  choose(state: HandState, legal: LegalActions): PlayerAction;
}

export interface AskedSeat {
  readonly kind: "remote" | "hosted";
  readonly botId: string;
  /** Asks the bot; resolves with its answer or why there is none. Never rejects. */
  ask(question: Question): Promise<SeatAnswer>;
}

/** One turn of a seat, as the runner sees it (its table's clock settings, its bank, the hand). */
export interface Turn {
  state: HandState;
  legal: LegalActions;
  actionTimeoutMs: number;
  /** The seat's time bank now; decide() answers the bank after this turn. */
  timeBankMs: number;
  /** Whether the seat is leaving the table (asked live: a leave may come while its bot thinks). */
  leaving: () => boolean;
  /** The action_request this turn sends, with its requestId and deadline (and the bank above, as the bot is told). */
  request: (requestId: string, deadlineMs: number) => ActionRequestMessage;
}

/** What decide() puts to a seat that is asked. */
export interface Question {
  turn: Turn;
  /** clock.now() when asked, and after which an answer is late: askedAt + budgetMs. */
  askedAt: number;
  deadlineMs: number;
  /** actionTimeoutMs plus the time bank: wall time for a remote bot, its own run time for a hosted one. */
  budgetMs: number;
  /** The one legality check (rules.ts illegalityFor): null when accepted. */
  illegality: (action: PlayerAction) => string | null;
}

/** A seat's answer: an action it chose, checked with `illegality`, or why it has none. */
export type SeatAnswer =
  | { answered: true; action: PlayerAction; tookMs: number }
  | {
      answered: false;
      /** "silent": no answer by the deadline (or a disconnect); "failed": its code failed or answered illegally. */
      why: "silent" | "failed";
      /** The seat's failures are exhausted (FailureCount): it folds for the rest of the match. */
      foldedForMatch: boolean;
    };

/** What decide() settled: the action to apply, and the seat's time bank after it. */
export interface Decided {
  action: PlayerAction;
  timeBankMs: number;
}

/** What decide() needs besides the seat and its turn: the clock, the time bank's policy, who hears of silences. */
export interface DecideRules {
  clock: Clock;
  timeBank: TimeBankPolicy;
  /** Hears of each request a seat left unanswered by its deadline (`cli play` counts them as timeouts). */
  onSilence: (botId: string) => void;
}

/** How a match reaches its seats that are not built in: each one's kind by botId, and the rules decide() applies. */
export interface AskedSeats {
  seat(botId: string): AskedSeat;
  rules: DecideRules;
}
