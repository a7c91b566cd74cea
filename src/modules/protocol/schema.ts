/**
 * The bot protocol as JSON Schema (TypeBox): every message both ways, strict (no unknown fields), so
 * real traffic checked against it catches any drift between docs/PROTOCOL.md and the server.
 * `bun run protocol:schema` writes it to docs/protocol.schema.json (a test keeps the file current).
 */
import { Type as T, type TSchema } from "@sinclair/typebox";

const strict = <P extends Record<string, TSchema>>(properties: P, description?: string) => T.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
const Card = T.String({ pattern: "^[2-9TJQKA][cdhs]$", description: "Rank 23456789TJQKA, then suit cdhs" });
const Int = (description?: string) => T.Integer(description ? { description } : {});
const Id = (prefix: string) => T.String({ pattern: `^${prefix}` });
const Time = T.String({ format: "date-time" });
const Street = T.Union([T.Literal("preflop"), T.Literal("flop"), T.Literal("turn"), T.Literal("river")]);
const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);

const Config = strict(
  {
    buyIn: Int(),
    smallBlind: Int(),
    bigBlind: Int(),
    maxPlayers: Int(),
    maxHands: Int(),
    actionTimeoutMs: Int(),
    duplicate: T.Optional(T.Boolean({ description: "Heads-up: every deal twice, seats swapped" })),
  },
  "The table's configuration (never its seed)",
);
const SeatState = strict({
  seat: Int("Seat number, 0-based"),
  botId: Nullable(Id("bot_")),
  stack: Int(),
  bet: Int("Chips in front of the seat on this street"),
  committed: Int("Chips put in this hand"),
  folded: T.Boolean(),
  allIn: T.Boolean(),
});
const StartSeat = strict({ seat: Int(), botId: Id("bot_"), stack: Int() });
const base = { tableId: Id("tbl_"), matchId: Id("m_") };

const matchStart = {
  ...base,
  config: Config,
  seeded: T.Boolean(),
  deckCommitment: Nullable(T.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256 (hex) of the deck secret; null on a seeded table" })),
  yourSeat: T.Optional(Int("Absent for spectators")),
  seats: T.Array(StartSeat),
};

export const serverMessages = {
  welcome: strict({ type: T.Literal("welcome"), botId: Id("bot_"), name: T.String(), protocolVersion: T.Literal(1), serverTime: Time }),
  snapshot: strict({
    type: T.Literal("snapshot"),
    tableId: Id("tbl_"),
    matchId: Nullable(Id("m_")),
    status: T.String(),
    config: Config,
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
        holeCards: Nullable(T.Array(Card, { minItems: 2, maxItems: 2 })),
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
    holeCards: T.Optional(T.Array(Card, { minItems: 2, maxItems: 2, description: "Bots only: the bot's own cards" })),
    seats: T.Array(SeatState),
  }),
  action: strict({
    type: T.Literal("action"),
    ...base,
    handNumber: Int(),
    seat: Int(),
    botId: Nullable(Id("bot_")),
    action: T.Union(["small_blind", "big_blind", "ante", "fold", "check", "call", "raise"].map((a) => T.Literal(a))),
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
    holeCards: T.Array(Card, { minItems: 2, maxItems: 2 }),
    pot: Int(),
    seats: T.Array(SeatState),
    yourSeat: Int(),
    toCall: Int("Chips a call adds (capped by the stack); 0 when checking is legal"),
    minRaiseTo: Nullable(Int("Street total; null when raising is not legal")),
    maxRaiseTo: Nullable(Int("Street total (all in); null when raising is not legal")),
    legalActions: T.Array(T.Union([T.Literal("fold"), T.Literal("check"), T.Literal("call"), T.Literal("raise")])),
    deadline: Time,
    timeBankMs: Int(),
  }),
  hand_ended: strict({
    type: T.Literal("hand_ended"),
    ...base,
    handNumber: Int(),
    board: T.Array(Card),
    showdown: T.Array(strict({ seat: Int(), botId: Nullable(Id("bot_")), cards: T.Array(Card, { minItems: 2, maxItems: 2 }), hand: T.String({ description: "e.g. \"one pair of kings, A-Q-9 kickers\"" }) })),
    mucked: T.Array(Int(), { description: "Seats that mucked at showdown (cards hidden)" }),
    uncalledReturned: T.Array(strict({ seat: Int(), amount: Int("Chips of an uncalled bet given back") })),
    pots: T.Array(strict({ amount: Int(), winners: T.Array(Int()), shares: T.Array(Int(), { description: "Chips each winner got, in the order of winners" }) })),
    stacks: T.Array(strict({ seat: Int(), botId: Nullable(Id("bot_")), stack: Int() })),
  }),
  match_ended: strict({ type: T.Literal("match_ended"), ...base, handsPlayed: Int(), players: T.Array(strict({ botId: Id("bot_"), finalChips: Int(), profit: Int("finalChips − buy-in") })) }),
  error: strict({
    type: T.Literal("error"),
    code: T.String({ description: "ILLEGAL_ACTION, STALE_REQUEST, BAD_MESSAGE, UNKNOWN_TYPE, REPLACED, KEY_ROTATED, RATE_LIMITED, NOT_FOUND (spectators)" }),
    message: T.String(),
    requestId: T.Optional(T.String()),
    retryAfterMs: T.Optional(Int()),
  }),
  pong: strict({ type: T.Literal("pong"), at: Time }),
  watching: strict({ type: T.Literal("watching"), table: T.Object({ tableId: Id("tbl_") }, { description: "The table as GET /api/tables/{tableId} shows it" }) }, "Spectators only: the first message"),
};

export const botMessages = {
  action: strict({
    type: T.Literal("action"),
    requestId: T.String(),
    action: T.Union([T.Literal("fold"), T.Literal("check"), T.Literal("call"), T.Literal("raise")]),
    amount: T.Optional(Int("With raise only: the street total to raise to")),
  }),
  ping: strict({ type: T.Literal("ping") }),
};

/** The whole protocol as one JSON Schema document: a message is one of `ServerMessage` or `BotMessage`. */
export function protocolSchema() {
  const refs = (prefix: string, names: string[]) => names.map((name) => ({ $ref: `#/$defs/${prefix}${name}` }));
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(serverMessages)) defs[`server.${name}`] = schema;
  for (const [name, schema] of Object.entries(botMessages)) defs[`bot.${name}`] = schema;
  return JSON.parse(
    JSON.stringify({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://poker-bots.local/protocol.schema.json",
      title: "Poker bot protocol (WebSocket /api/bots/connect and /api/tables/{tableId}/watch), version 1",
      description: "Every message is one JSON object with a `type`. See docs/PROTOCOL.md for when each is sent.",
      oneOf: [{ $ref: "#/$defs/ServerMessage" }, { $ref: "#/$defs/BotMessage" }],
      $defs: {
        ServerMessage: { description: "Server to bot (and to spectators)", oneOf: refs("server.", Object.keys(serverMessages)) },
        BotMessage: { description: "Bot to server", oneOf: refs("bot.", Object.keys(botMessages)) },
        ...defs,
      },
    }),
  );
}
