import { t } from "elysia";
import { bodyInteger } from "../../lib/http";
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
