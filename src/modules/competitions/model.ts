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

const SitAndGoBody = t.Object(
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
  { additionalProperties: false, title: "CreateSitAndGoRequest", examples: [{ kind: "sit-and-go", seats: 6, buyIn: 1000 }] },
);

const RoundRobinBody = t.Object(
  {
    kind: t.Literal("round-robin", { description: "round-robin: every pair of entries meets matchesPerPair times, in rounds of disjoint pairs" }),
    matchesPerPair: bodyInteger({ minimum: 1, maximum: 20 }),
    handsPerMatch: bodyInteger({ minimum: 1, maximum: 10_000 }),
    buyIn: bodyInteger({ minimum: 2, maximum: 1_000_000_000, description: "Each bot's buy-in at each of its matches, off its owner's balance at that match's start" }),
    smallBlind: bodyInteger({ minimum: 1, maximum: 1_000_000_000 }),
    bigBlind: bodyInteger({ minimum: 1, maximum: 1_000_000_000 }),
    division: t.Optional(oneOf(["open", "hosted"] as const, { description: "open (default): plain matches, each its own decks. hosted: only bots the service runs; duplicate matches, every match of a round dealing the round's decks" })),
    startsAt: t.Optional(t.String({ format: "date-time", description: "When it starts by itself (one node of the cluster fires it); without it, POST /api/tournaments/{id}/start" })),
  },
  { additionalProperties: false, title: "CreateRoundRobinRequest", examples: [{ kind: "round-robin", matchesPerPair: 2, handsPerMatch: 200, buyIn: 1000, smallBlind: 5, bigBlind: 10, division: "hosted" }] },
);

export const CreateTournamentBody = t.Union([SitAndGoBody, RoundRobinBody], { title: "CreateTournamentRequest" });

const TournamentStatus = oneOf(["registering", "running", "finished", "cancelled"] as const);
const TournamentKind = oneOf(["sit-and-go", "round-robin"] as const);

const Interval = t.Union([t.Array(t.Number(), { minItems: 2, maxItems: 2 }), t.Null()], { description: "95 % interval of the per-match bb/100 (null under two played matches)" });

export const Tournament = t.Object(
  {
    tournamentId: t.String(),
    kind: TournamentKind,
    status: TournamentStatus,
    createdBy: t.String(),
    createdAt: t.String({ format: "date-time" }),
    buyIn: t.Integer(),
    entries: t.Array(t.Object({ botId: t.String(), enteredAt: t.String({ format: "date-time" }) })),
    seats: t.Optional(t.Integer({ description: "Sit-and-go" })),
    blindLevels: t.Optional(t.Array(t.Object({ hands: t.Integer(), smallBlind: t.Integer(), bigBlind: t.Integer() }))),
    handCap: t.Optional(t.Integer({ description: "Sit-and-go: the safety cap on hands: there each bot cashes out the chips it holds, and places follow chips" })),
    tableId: t.Optional(t.Union([t.String(), t.Null()], { description: "Sit-and-go: the event's table (GET /api/tables/{tableId}, watch it live)" })),
    matchId: t.Optional(t.Union([t.String(), t.Null()])),
    matchesPerPair: t.Optional(t.Integer()),
    handsPerMatch: t.Optional(t.Integer()),
    smallBlind: t.Optional(t.Integer()),
    bigBlind: t.Optional(t.Integer()),
    division: t.Optional(oneOf(["open", "hosted"] as const)),
    startsAt: t.Optional(t.Union([t.String({ format: "date-time" }), t.Null()])),
    rounds: t.Optional(t.Union([t.Integer(), t.Null()], { description: "Round robin: how many rounds (known at the start)" })),
    currentRound: t.Optional(t.Integer()),
    matches: t.Optional(
      t.Array(
        t.Object({
          round: t.Integer(),
          players: t.Array(t.String(), { minItems: 2, maxItems: 2 }),
          status: oneOf(["scheduled", "playing", "played", "forfeit"] as const),
          tableId: t.Union([t.String(), t.Null()]),
          matchId: t.Union([t.String(), t.Null()]),
          twinMatchId: t.Union([t.String(), t.Null()], { description: "Hosted division: the duplicate pair's copy 2" }),
          forfeitedBy: t.Union([t.String(), t.Null()]),
        }),
      ),
    ),
    crosstable: t.Optional(
      t.Array(t.Object({ botId: t.String(), opponentBotId: t.String(), matches: t.Integer(), bbPer100: t.Union([t.Number(), t.Null()]), ci95: Interval }), {
        description: "Round robin: each ordered pair, botId's bb/100 against opponentBotId over their matches",
      }),
    ),
    standings: t.Optional(
      t.Array(
        t.Object({
          botId: t.String(),
          rank: t.Integer(),
          points: t.Number({ description: "1 a match won, ½ level, 0 lost or forfeited (a forfeit gives its opponent 1)" }),
          matches: t.Integer(),
          bbPer100: t.Union([t.Number(), t.Null()]),
          ci95: Interval,
          overNext: t.Union([t.Number(), t.Null()], { description: "Share of 1000 bootstrap resamples of the matches in which this bot still ranks above the next" }),
        }),
        { description: "Round robin: live while it runs, frozen when it finishes" },
      ),
    ),
    places: t.Optional(t.Array(
      t.Object({ botId: t.String(), place: t.Integer({ minimum: 1 }), cashout: t.Integer({ description: "What its seat was paid: every busted bot 0, a freezeout's winner every chip" }) }),
      { description: "When finished: by chips held at the end, then by the hand each bot busted in (later first), then by its stack as that hand began; equal keys share a place" },
    )),
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
export const Entry = t.Object(
  { tournamentId: t.String(), botId: t.String(), seat: t.Union([t.Integer(), t.Null()], { description: "Sit-and-go: its seat (null in a round robin: seated at each match)" }), chips: t.Union([t.Integer(), t.Null()]) },
  { title: "TournamentEntry" },
);
export const Withdrawal = t.Object({ tournamentId: t.String(), botId: t.String(), cashout: t.Integer({ description: "Sit-and-go: the buy-in, returned (one cashout); 0 in a round robin (nothing is paid before a match)" }) }, { title: "TournamentWithdrawal" });

export const TournamentsQuery = t.Object(
  {
    status: t.Optional(TournamentStatus),
    kind: t.Optional(TournamentKind),
    limit: t.Optional(pageLimit()),
    before: t.Optional(idString({ description: "A tournamentId: only older ones (the cursor of the `Link` rel=next header)" })),
  },
  { additionalProperties: false },
);
