/**
 * Every message of the bot protocol (docs/PROTOCOL.md), as TypeScript types.
 * Cards are strings ("As", "Td"); seats are numbered from 0; amounts are integer chips.
 */

export type Card = string;
export type Street = "preflop" | "flop" | "turn" | "river";
export type ActionName = "fold" | "check" | "call" | "raise";
export type PublicActionName = ActionName | "small_blind" | "big_blind" | "ante";

export interface TableConfig {
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  maxPlayers: number;
  maxHands: number;
  actionTimeoutMs: number;
  seed?: string;
}

export interface SeatState {
  seat: number;
  botId: string | null;
  stack: number;
  bet: number;
  committed: number;
  folded: boolean;
  allIn: boolean;
}

export interface WelcomeMessage {
  type: "welcome";
  botId: string;
  name: string;
  protocolVersion: number;
  serverTime: string;
}

export interface SnapshotMessage {
  type: "snapshot";
  tableId: string;
  matchId: string | null;
  status: string;
  config: TableConfig;
  handNumber: number;
  hand: {
    street: Street | "showdown";
    button: number;
    board: Card[];
    pot: number;
    seats: SeatState[];
    yourSeat: number | null;
    holeCards: [Card, Card] | null;
    toAct: number | null;
  } | null;
}

export interface MatchStartedMessage {
  type: "match_started";
  tableId: string;
  matchId: string;
  config: TableConfig;
  /** Absent for spectators. */
  yourSeat?: number;
  seats: Array<{ seat: number; botId: string; stack: number }>;
}

export interface HandStartedMessage {
  type: "hand_started";
  tableId: string;
  matchId: string;
  handNumber: number;
  button: number;
  smallBlind: number;
  bigBlind: number;
  /** Absent for spectators. */
  yourSeat?: number;
  /** Your own two cards; absent for spectators. */
  holeCards?: [Card, Card];
  seats: SeatState[];
}

export interface ActionMessage {
  type: "action";
  tableId: string;
  matchId: string;
  handNumber: number;
  seat: number;
  botId: string | null;
  action: PublicActionName;
  /** raise: the street total raised to; call and blinds: chips put in; 0 for check and fold. */
  amount: number;
  allIn: boolean;
}

export interface StreetMessage {
  type: "street";
  tableId: string;
  matchId: string;
  handNumber: number;
  street: Street;
  cards: Card[];
  board: Card[];
}

export interface ActionRequestMessage {
  type: "action_request";
  requestId: string;
  tableId: string;
  matchId: string;
  handNumber: number;
  street: Street;
  board: Card[];
  holeCards: [Card, Card];
  pot: number;
  seats: SeatState[];
  yourSeat: number;
  toCall: number;
  minRaiseTo: number | null;
  maxRaiseTo: number | null;
  legalActions: ActionName[];
  deadline: string;
  timeBankMs: number;
}

export interface HandEndedMessage {
  type: "hand_ended";
  tableId: string;
  matchId: string;
  handNumber: number;
  board: Card[];
  showdown: Array<{ seat: number; botId: string | null; cards: Card[]; hand: string }>;
  mucked: number[];
  uncalledReturned: Array<{ seat: number; amount: number }>;
  pots: Array<{ amount: number; winners: number[]; shares: number[] }>;
  stacks: Array<{ seat: number; botId: string | null; stack: number }>;
}

export interface MatchEndedMessage {
  type: "match_ended";
  tableId: string;
  matchId: string;
  handsPlayed: number;
  players: Array<{ botId: string; finalChips: number; profit: number }>;
}

export type ErrorCode = "ILLEGAL_ACTION" | "STALE_REQUEST" | "BAD_MESSAGE" | "UNKNOWN_TYPE" | "REPLACED" | "RATE_LIMITED" | "NOT_FOUND" | (string & {});

export interface ErrorMessage {
  type: "error";
  code: ErrorCode;
  message: string;
  requestId?: string;
  retryAfterMs?: number;
}

export interface PongMessage {
  type: "pong";
  at: string;
}

/** Spectators only (`/api/tables/:tableId/watch`): the first message, with the table. */
export interface WatchingMessage {
  type: "watching";
  table: {
    tableId: string;
    status: string;
    config: TableConfig;
    seats: Array<{ seat: number; botId: string; chips: number; leaving: boolean }>;
    matchId: string | null;
    handsPlayed: number;
    createdAt: string;
  };
}

/** Everything the server sends to a bot. */
export type ServerMessage =
  | WelcomeMessage
  | SnapshotMessage
  | MatchStartedMessage
  | HandStartedMessage
  | ActionMessage
  | StreetMessage
  | ActionRequestMessage
  | HandEndedMessage
  | MatchEndedMessage
  | ErrorMessage
  | PongMessage;

/** Everything a spectator receives (a `snapshot` right after `watching` when a hand is in play, without hole cards). */
export type SpectatorMessage =
  | WatchingMessage
  | SnapshotMessage
  | MatchStartedMessage
  | HandStartedMessage
  | ActionMessage
  | StreetMessage
  | HandEndedMessage
  | MatchEndedMessage
  | ErrorMessage;

export type ServerMessageType = ServerMessage["type"];
export type MessageOfType<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>;

/** Bot → server: an answer to an action_request. `amount` only with raise (the total to raise to). */
export interface BotActionMessage {
  type: "action";
  requestId: string;
  action: ActionName;
  amount?: number;
}

export interface PingMessage {
  type: "ping";
}

export type BotMessage = BotActionMessage | PingMessage;

const SERVER_TYPES = new Set<string>([
  "welcome", "snapshot", "match_started", "hand_started", "action", "street", "action_request",
  "hand_ended", "match_ended", "error", "pong", "watching",
]);

/** Parses one frame; null when it is not a JSON object with a known `type`. */
export function parseServerMessage(data: unknown): ServerMessage | null {
  let value: unknown = data;
  if (typeof data === "string") {
    try {
      value = JSON.parse(data);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !SERVER_TYPES.has(type)) return null;
  return value as ServerMessage;
}
