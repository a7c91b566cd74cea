import { t } from "elysia";
import { bodyInteger, idString, oneOf } from "../../lib/http";
import { pageLimit } from "../../lib/paging";
import { BotId } from "../bots/model";

export const ChallengeOfferBody = t.Object(
  {
    openToChallenges: t.Boolean({ description: "true: other developers may challenge this bot (POST /api/challenges), up to maxBuyIn; false: no more challenges" }),
    maxBuyIn: t.Optional(bodyInteger({ minimum: 1, maximum: 1_000_000_000, description: "The largest buy-in you accept for it (required with openToChallenges: true): each challenge costs you this bot's buy-in, paid from your balance at its seating" })),
  },
  { additionalProperties: false, title: "ChallengeOfferRequest", examples: [{ openToChallenges: true, maxBuyIn: 1000 }] },
);

export const ChallengeOffer = t.Object(
  {
    botId: t.String(),
    openToChallenges: t.Boolean(),
    maxBuyIn: t.Union([t.Integer(), t.Null()], { description: "The largest buy-in accepted (null: not open)" }),
  },
  { title: "ChallengeOffer" },
);

export const ChallengeBody = t.Object(
  {
    botId: BotId,
    opponentBotId: BotId,
    hands: bodyInteger({ minimum: 1, maximum: 10_000, description: "The match ends after this many hands at the latest (or when one bot holds every chip)" }),
    buyIn: bodyInteger({ minimum: 10, maximum: 1_000_000_000, description: "Each bot's buy-in, paid by its own owner; at most the opponent's maxBuyIn; blinds 5/10" }),
  },
  { additionalProperties: false, title: "ChallengeRequest", examples: [{ botId: "bot_01jx8m2k3n4p5q6r7s8t9v0w1x", opponentBotId: "bot_01jx8m2k3n4p5q6r7s8t9v0w1y", hands: 200, buyIn: 1000 }] },
);

export const Challenge = t.Object(
  {
    tableId: t.String({ description: "The match's table (GET /api/tables/{tableId}: its matchId once started)" }),
    botId: t.String(),
    opponentBotId: t.String(),
    hands: t.Integer(),
    buyIn: t.Integer(),
    smallBlind: t.Integer(),
    bigBlind: t.Integer(),
    rated: t.Literal(false, { description: "A challenge never changes a rating; it counts in statistics and the leaderboard" }),
  },
  { title: "Challenge" },
);

const BlindLevel = t.Object(
  {
    hands: bodyInteger({ minimum: 1, maximum: 100_000, description: "Hands at this level (the last level lasts to the end)" }),
    smallBlind: bodyInteger({ minimum: 1, maximum: 1_000_000_000 }),
    bigBlind: bodyInteger({ minimum: 1, maximum: 1_000_000_000 }),
  },
  { additionalProperties: false, title: "BlindLevel" },
);

export const CreateTournamentBody = t.Object(
  {
    kind: t.Literal("sit-and-go", { description: "sit-and-go: one table, rising blinds, until one bot holds every chip" }),
    seats: bodyInteger({ minimum: 2, maximum: 10, description: "Bots at the table; it starts when the last seat is taken" }),
    buyIn: bodyInteger({ minimum: 2, maximum: 1_000_000_000, description: "Each entry's buy-in (its starting chips), off its owner's balance at entry" }),
    blindLevels: t.Optional(
      t.Array(BlindLevel, {
        minItems: 1,
        maxItems: 50,
        description: "Hand n plays at the level its number falls in (counted from hand 1); the last level lasts to the end. Default: ten levels of 10 hands, big blinds 2, 3, 4, 6, 8, 10, 15, 20, 30 and 50 % of the buy-in",
      }),
    ),
  },
  { additionalProperties: false, title: "CreateTournamentRequest", examples: [{ kind: "sit-and-go", seats: 6, buyIn: 1000 }] },
);

const TournamentStatus = oneOf(["registering", "running", "finished", "cancelled"] as const);
const TournamentKind = oneOf(["sit-and-go", "round-robin"] as const);

export const Tournament = t.Object(
  {
    tournamentId: t.String(),
    kind: TournamentKind,
    status: TournamentStatus,
    createdBy: t.String(),
    createdAt: t.String({ format: "date-time" }),
    seats: t.Integer(),
    buyIn: t.Integer(),
    blindLevels: t.Array(t.Object({ hands: t.Integer(), smallBlind: t.Integer(), bigBlind: t.Integer() })),
    handCap: t.Integer({ description: "The safety cap on hands: there each bot cashes out the chips it holds, and places follow chips" }),
    tableId: t.Union([t.String(), t.Null()], { description: "The event's table (GET /api/tables/{tableId}, watch it live)" }),
    entries: t.Array(t.Object({ botId: t.String(), enteredAt: t.String({ format: "date-time" }) })),
    matchId: t.Union([t.String(), t.Null()]),
    places: t.Array(
      t.Object({ botId: t.String(), place: t.Integer({ minimum: 1 }), cashout: t.Integer({ description: "What its seat was paid: every busted bot 0, a freezeout's winner every chip" }) }),
      { description: "When finished: by chips held at the end, then by the hand each bot busted in (later first), then by its stack as that hand began; equal keys share a place" },
    ),
  },
  { title: "Tournament" },
);

export const CancelledTournament = t.Object(
  { ...Tournament.properties, refunds: t.Array(t.Object({ botId: t.String(), cashout: t.Integer() })) },
  { title: "CancelledTournament" },
);

export const TournamentParams = t.Object({ id: idString() });
export const EntryParams = t.Object({ id: idString(), botId: BotId });
export const EntryBody = t.Object({ botId: BotId }, { additionalProperties: false, title: "TournamentEntryRequest" });
export const Entry = t.Object({ tournamentId: t.String(), botId: t.String(), seat: t.Integer(), chips: t.Integer() }, { title: "TournamentEntry" });
export const Withdrawal = t.Object({ tournamentId: t.String(), botId: t.String(), cashout: t.Integer({ description: "The buy-in, returned (one cashout)" }) }, { title: "TournamentWithdrawal" });

export const TournamentsQuery = t.Object(
  {
    status: t.Optional(TournamentStatus),
    kind: t.Optional(TournamentKind),
    limit: t.Optional(pageLimit()),
    before: t.Optional(idString({ description: "A tournamentId: only older ones (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);
