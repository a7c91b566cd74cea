import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { BotParams } from "../bots/model";
import {
  CancelledTournament,
  Challenge,
  ChallengeBody,
  ChallengeOffer,
  ChallengeOfferBody,
  CreateTournamentBody,
  Entry,
  EntryBody,
  EntryParams,
  Tournament,
  TournamentParams,
  TournamentsQuery,
  Withdrawal,
} from "./model";
import type { Challenges } from "./challenges";
import type { Tournaments } from "./tournaments";

/** Competitions (docs/COMPETITIONS.md): challenges and tournaments. */
export function competitionsModule(challenges: Challenges, tournaments: Tournaments, auth: AuthOptions, keys: IdempotencyKeys) {
  const entryRule = "Entering seats the bot at the event's table: its buy-in comes off your balance as any join (402 INSUFFICIENT_BALANCE), and it is the brief's `buy_in`.";
  return new Elysia({ name: "module:competitions" })
    .use(authPlugin(auth))
    .post(
      "/api/tournaments",
      ({ developerId, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const created = await tournaments.create(developerId, body);
          set.status = 201;
          return created;
        }),
      {
        auth: true,
        parse: "json",
        headers: IdempotencyHeaders,
        body: CreateTournamentBody,
        response: { 201: Tournament, ...errorResponses(400, 401, 409, 422) },
        detail: {
          tags: ["tournaments"],
          summary: "Create a tournament (sit-and-go or round robin)",
          description: `A sit-and-go: one table of \`seats\` bots that starts when the last seat is taken and plays until one bot holds every chip (a freezeout), the blinds rising by hand count; at the safety cap (\`handCap\`, 2000 hands) each bot cashes out what it holds and places follow chips. Each seat's cashout is its remaining chips: every busted bot 0, the winner everything. ${entryRule} A sit-and-go nobody enters within the waiting-table time (1 h) expires: cancelled. At most 10 registering or running tournaments of yours (409 TOO_MANY_OPEN_TOURNAMENTS). A round robin (\`kind: "round-robin"\`): entries until it starts (\`startsAt\`, or POST …/start), then rounds of disjoint pairs, \`matchesPerPair\` matches per pair, each an ordinary table paid at its seating (a bot whose owner cannot pay then forfeits that match); \`division: "hosted"\` takes only bots the service runs and plays duplicate matches, every match of a round dealing the round's one committed secret, revealed when the round ends (docs/FAIRNESS.md).`,
        },
      },
    )
    .get("/api/tournaments", async ({ query, set }) => withNextLink(set, await tournaments.list(query), "/api/tournaments", (before) => ({ status: query.status, kind: query.kind, limit: query.limit, before })), {
      query: TournamentsQuery,
      response: { 200: t.Array(Tournament), ...errorResponses(400) },
      detail: { tags: ["tournaments"], summary: "Tournaments", description: `Newest first, filtered by \`status\` and \`kind\`. ${PAGING_RULE} The cursor is \`before\`, a tournamentId.` },
    })
    .get("/api/tournaments/:id", ({ params }) => tournaments.get(params.id), {
      params: TournamentParams,
      response: { 200: Tournament, ...errorResponses(400, 404) },
      detail: { tags: ["tournaments"], summary: "One tournament", description: "Public: its entries, its table and match, and when finished its places with each seat's cashout." },
    })
    .post("/api/tournaments/:id/start", ({ developerId, params }) => tournaments.start(developerId, params.id), {
      auth: true,
      params: TournamentParams,
      response: { 200: Tournament, ...errorResponses(400, 401, 403, 404, 409) },
      detail: { tags: ["tournaments"], summary: "Start a round robin now", description: "Its creator only (403), while registering with at least 2 entries (409 TOURNAMENT_NOT_REGISTERING otherwise; a sit-and-go starts by itself when full). A `startsAt` round robin starts by itself then (one node of the cluster fires it)." },
    })
    .delete("/api/tournaments/:id", ({ developerId, params, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => tournaments.cancel(developerId, params.id)), {
      auth: true,
      params: TournamentParams,
      headers: IdempotencyHeaders,
      response: { 200: CancelledTournament, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
      detail: { tags: ["tournaments"], summary: "Cancel a tournament", description: "Its creator only (403), before the start (409 TOURNAMENT_NOT_REGISTERING): every entered bot's seat is cashed out with its untouched chips (its buy-in; one `cashout` each)." },
    })
    .post(
      "/api/tournaments/:id/entries",
      ({ developerId, params, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const entered = await tournaments.enter(developerId, params.id, body.botId);
          set.status = 201;
          return entered;
        }),
      {
        auth: true,
        parse: "json",
        params: TournamentParams,
        headers: IdempotencyHeaders,
        body: EntryBody,
        response: { 201: Entry, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 503) },
        detail: {
          tags: ["tournaments"],
          summary: "Enter a bot",
          description: `Owner only (403). ${entryRule} 409 DEVELOPER_ALREADY_ENTERED (one bot per developer per event), TOURNAMENT_FULL, TOURNAMENT_NOT_REGISTERING, BOT_ALREADY_SEATED (it sits at another table).`,
        },
      },
    )
    .delete(
      "/api/tournaments/:id/entries/:botId",
      ({ developerId, params, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => tournaments.withdraw(developerId, params.id, params.botId)),
      {
        auth: true,
        params: EntryParams,
        headers: IdempotencyHeaders,
        response: { 200: Withdrawal, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
        detail: { tags: ["tournaments"], summary: "Withdraw a bot", description: "Owner only, before the start (409 TOURNAMENT_NOT_REGISTERING): the seat's untouched chips (its buy-in) come back in one `cashout`. 404 BOT_NOT_ENTERED." },
      },
    )
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
