import { Elysia } from "elysia";
import { errorResponses } from "../../lib/http";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { BotParams } from "../bots/model";
import { Challenge, ChallengeBody, ChallengeOffer, ChallengeOfferBody } from "./model";
import type { Challenges } from "./challenges";

/** Competitions (docs/COMPETITIONS.md): challenges. */
export function competitionsModule(challenges: Challenges, auth: AuthOptions, keys: IdempotencyKeys) {
  return new Elysia({ name: "module:competitions" })
    .use(authPlugin(auth))
    .put("/api/bots/:botId/challenges", ({ developerId, params, body }) => challenges.setOffer(developerId, params.botId, body), {
      auth: true,
      parse: "json",
      params: BotParams,
      body: ChallengeOfferBody,
      response: { 200: ChallengeOffer, ...errorResponses(400, 401, 403, 404, 409, 422) },
      detail: {
        tags: ["challenges"],
        summary: "Open or close a bot to challenges",
        description:
          "Owner only (403). `openToChallenges: true` with `maxBuyIn`: other developers may challenge the bot (POST /api/challenges) with a buy-in up to it; each challenge seats it at once and charges you its buy-in (402 at the challenge, answered to the challenger as 409 OPPONENT_CANNOT_PLAY, when your balance does not cover it). A hosted or built-in bot plays without you online; a remote bot must be connected or it times out. The house's bots take no challenges: 409 HOUSE_TAKES_NO_CHALLENGES.",
      },
    })
    .get("/api/bots/:botId/challenges", ({ params }) => challenges.offerOf(params.botId), {
      params: BotParams,
      response: { 200: ChallengeOffer, ...errorResponses(400, 404) },
      detail: { tags: ["challenges"], summary: "Whether a bot takes challenges, and up to what buy-in", description: "Public." },
    })
    .post(
      "/api/challenges",
      ({ developerId, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const challenge = await challenges.challenge(developerId, body);
          set.status = 201;
          return challenge;
        }),
      {
        auth: true,
        parse: "json",
        headers: IdempotencyHeaders,
        body: ChallengeBody,
        response: { 201: Challenge, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 503) },
        detail: {
          tags: ["challenges"],
          summary: "Challenge another developer's bot",
          description:
            "Plays a heads-up match of your bot (403 not yours) against `opponentBotId` at a new table: each owner pays its own bot's buy-in (a buy_in row each; the stacks come back as cashouts at the end). Refused, with nothing charged: 400 against your own bot; 409 NOT_OPEN_TO_CHALLENGES (its owner has not opted in: PUT /api/bots/{botId}/challenges), CHALLENGE_BUY_IN_TOO_HIGH (above the buy-in its owner accepts, `details.maxBuyIn`), HOUSE_TAKES_NO_CHALLENGES (the ladder house's bots), OPPONENT_CANNOT_PLAY (its owner cannot pay, or it sits at another table: your buy-in is refunded), BOT_ALREADY_SEATED (yours sits elsewhere); 402 INSUFFICIENT_BALANCE (yours). A challenge is never rated (no OpenSkill change) and counts in statistics and the leaderboard like any match that moves credits. Its table takes no other join (409 COMPETITION_TABLE).",
        },
      },
    );
}
