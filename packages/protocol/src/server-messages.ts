/** Every message the server sends: to a bot (`/api/bots/connect`) and to a spectator (`/api/tables/{tableId}/watch`). */
import { Type as T } from "@sinclair/typebox";
import { ActionName, Card, CardPair, Id, Int, Nullable, oneOf, strict, Street, Time } from "./kit";
import { PublicTableConfig } from "./table-config";

export const SeatState = strict({
  seat: Int("Seat number, 0-based"),
  botId: Nullable(Id("bot_")),
  stack: Int(),
  bet: Int("Chips in front of the seat on this street"),
  committed: Int("Chips put in this hand"),
  folded: T.Boolean(),
  allIn: T.Boolean(),
});
export const PublicActionName = oneOf(["small_blind", "big_blind", "ante", "fold", "check", "call", "raise"]);
/** The codes the server sends today; a bot must expect others (the type stays open to any string). */
export type ErrorCode = "ILLEGAL_ACTION" | "STALE_REQUEST" | "BAD_MESSAGE" | "UNKNOWN_TYPE" | "REPLACED" | "KEY_ROTATED" | "RATE_LIMITED" | "BOT_HOSTED" | "NOT_FOUND" | (string & {});

const StartSeat = strict({ seat: Int(), botId: Id("bot_"), stack: Int() });
const base = { tableId: Id("tbl_"), matchId: Id("m_") };
const matchStart = {
  ...base,
  config: PublicTableConfig,
  seeded: T.Boolean(),
  deckCommitment: Nullable(T.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256 (hex) of the deck secret; null on a seeded table" })),
  yourSeat: T.Optional(Int("Absent for spectators")),
  seats: T.Array(StartSeat),
};

export const serverMessages = {
  welcome: strict({
    type: T.Literal("welcome"),
    botId: Id("bot_"),
    name: T.String(),
    protocolVersion: T.Literal(1),
    serverTime: Time,
    hosted: T.Optional(
      strict(
        {
          codeVersion: Int("The uploaded version that plays the bot's next match"),
          message: T.String({ description: "What this means and how to switch back, in words (the SDK prints it)" }),
        },
        "Present only when the bot's uploaded code plays it (a hosted bot, docs/HOSTED.md): the service seats the code, never this socket, so this connection waits idle. To play through the socket instead, turn hosting off: DELETE /api/bots/{botId}/code (`bun run cli -- bots unhost <bot>`); the next match then seats this socket. A socket already open when code is uploaded hears an `error` BOT_HOSTED with the same message.",
      ),
    ),
  }),
  snapshot: strict({
    type: T.Literal("snapshot"),
    tableId: Id("tbl_"),
    matchId: Nullable(Id("m_")),
    status: T.String(),
    config: PublicTableConfig,
    seeded: T.Boolean(),
    handNumber: Int(),
    voidedHands: T.Array(Int(), {
      description: "Every hand number of this match voided by a resumption after its host died (see match_resumed): a bot that reconnects after the resumption learns here which hands never happened",
    }),
    hand: Nullable(
      strict({
        street: T.Union([Street, T.Literal("showdown")]),
        button: Int(),
        board: T.Array(Card),
        pot: Int(),
        seats: T.Array(SeatState),
        yourSeat: Nullable(Int()),
        holeCards: Nullable(CardPair()),
        toAct: Nullable(Int()),
      }),
    ),
  }),
  match_started: strict({ type: T.Literal("match_started"), ...matchStart }),
  match_resumed: strict({
    type: T.Literal("match_resumed"),
    ...matchStart,
    handsPlayed: Int("Hands recorded before the resumption"),
    voidedHands: T.Array(Int(), {
      description: "Hand numbers this resumption voided: dealt perhaps (even finished and shown), never recorded; their chips are back in the stacks given here, and they are never dealt again",
    }),
  }),
  hand_started: strict({
    type: T.Literal("hand_started"),
    ...base,
    handNumber: Int(),
    button: Int(),
    smallBlind: Int(),
    bigBlind: Int(),
    yourSeat: T.Optional(Int("Bots only")),
    holeCards: T.Optional(CardPair({ description: "Bots only: the bot's own cards" })),
    seats: T.Array(SeatState),
  }),
  action: strict({
    type: T.Literal("action"),
    ...base,
    handNumber: Int(),
    seat: Int(),
    botId: Nullable(Id("bot_")),
    action: PublicActionName,
    amount: Int("raise: the street total raised to (also a street's first bet); call, blinds, ante: chips put in; 0 for check and fold"),
    allIn: T.Boolean(),
  }),
  street: strict({ type: T.Literal("street"), ...base, handNumber: Int(), street: Street, cards: T.Array(Card, { description: "The new cards" }), board: T.Array(Card) }),
  action_request: strict({
    type: T.Literal("action_request"),
    requestId: T.String(),
    ...base,
    handNumber: Int(),
    street: Street,
    board: T.Array(Card),
    holeCards: CardPair(),
    pot: Int(),
    seats: T.Array(SeatState),
    yourSeat: Int(),
    toCall: Int("Chips a call adds (capped by the stack); 0 when checking is legal"),
    minRaiseTo: Nullable(Int("Street total; null when raising is not legal")),
    maxRaiseTo: Nullable(Int("Street total (all in); null when raising is not legal")),
    legalActions: T.Array(ActionName),
    deadline: Time,
    timeBankMs: Int(),
  }),
  hand_ended: strict({
    type: T.Literal("hand_ended"),
    ...base,
    handNumber: Int(),
    board: T.Array(Card),
    showdown: T.Array(strict({ seat: Int(), botId: Nullable(Id("bot_")), cards: CardPair(), hand: T.String({ description: "e.g. \"one pair of kings, A-Q-9 kickers\"" }) })),
    mucked: T.Array(Int(), { description: "Seats that mucked at showdown (cards hidden)" }),
    uncalledReturned: T.Array(strict({ seat: Int(), amount: Int("Chips of an uncalled bet given back") })),
    pots: T.Array(strict({ amount: Int(), winners: T.Array(Int()), shares: T.Array(Int(), { description: "Chips each winner got, in the order of winners" }) })),
    stacks: T.Array(strict({ seat: Int(), botId: Nullable(Id("bot_")), stack: Int() })),
  }),
  match_ended: strict({ type: T.Literal("match_ended"), ...base, handsPlayed: Int(), players: T.Array(strict({ botId: Id("bot_"), finalChips: Int(), profit: Int("finalChips − buy-in") })) }),
  error: strict({
    type: T.Literal("error"),
    code: T.Unsafe<ErrorCode>(T.String({ description: "ILLEGAL_ACTION, STALE_REQUEST, BAD_MESSAGE, UNKNOWN_TYPE, REPLACED, KEY_ROTATED, RATE_LIMITED, BOT_HOSTED (the bot's uploaded code now plays it: see welcome.hosted), NOT_FOUND (spectators)" })),
    message: T.String(),
    // null: a STALE_REQUEST answering an action that carried no string requestId.
    requestId: T.Optional(Nullable(T.String())),
    retryAfterMs: T.Optional(Int()),
  }),
  pong: strict({ type: T.Literal("pong"), at: Time }),
  watching: strict(
    {
      type: T.Literal("watching"),
      // Open to more fields: the HTTP view of a table (src/modules/tables/model.ts) may grow without breaking the protocol.
      table: T.Object(
        {
          tableId: Id("tbl_"),
          status: T.String(),
          config: PublicTableConfig,
          seats: T.Array(T.Object({ seat: Int(), botId: Id("bot_"), chips: Int(), leaving: T.Boolean() })),
          matchId: Nullable(Id("m_")),
          handsPlayed: Int(),
          createdAt: Time,
        },
        { description: "The table as GET /api/tables/{tableId} shows it" },
      ),
    },
    "Spectators only: the first message",
  ),
};

