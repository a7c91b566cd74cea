import { Elysia, t } from "elysia";
import type { LadderSettings } from "../../config";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { EnterBody, EntryParams, FormatQuery, LadderEntry, LadderStanding, StandingsQuery } from "./model";
import type { Ladder } from "./service";

/** The ladder (docs/LADDER.md): enter a bot once, and it plays rated matches for as long as it is entered. */
export function ladderModule(ladder: Ladder, auth: AuthOptions, settings: LadderSettings) {
  const terms = `Ladder tables: buy-in LADDER_BUY_IN (${settings.buyIn}, off your balance at seating, the rest back at the end, as any table), blinds ${settings.smallBlind}/${settings.bigBlind}, ${settings.hands} hands, ${settings.actionTimeoutMs} ms per action; never two bots of one developer at a table, so every ladder match is rated.`;
  return new Elysia({ name: "module:ladder" })
    .use(authPlugin(auth))
    .post(
      "/api/ladder/entries",
      async ({ developerId, body, set }) => {
        const { created, entry } = await ladder.enter(developerId, body.botId, body.format ?? "heads-up");
        set.status = created ? 201 : 200;
        return entry;
      },
      {
        auth: true,
        parse: "json",
        body: EnterBody,
        response: { 200: LadderEntry, 201: LadderEntry, ...errorResponses(400, 401, 403, 404, 409) },
        detail: {
          tags: ["ladder"],
          summary: "Enter a bot in the ladder",
          description: `Owner only (403). 201 with the new entry; the same bot and format again: 200 with the entry already there. A bot may be in both formats (it sits at one table at a time). Retired bot: 409 BOT_RETIRED. ${terms}`,
        },
      },
    )
    .delete(
      "/api/ladder/entries/:botId",
      ({ developerId, params, query }) => ladder.leave(developerId, params.botId, query.format ?? "heads-up"),
      {
        auth: true,
        params: EntryParams,
        query: FormatQuery,
        response: { 200: LadderEntry, ...errorResponses(400, 401, 403, 404) },
        detail: { tags: ["ladder"], summary: "Take a bot off the ladder", description: "Owner only. The bot finishes the match it is in, if any, and is not paired again; the answer is the entry as it stood. 404 when the bot is not entered in that format." },
      },
    )
    .get("/api/me/ladder", ({ developerId }) => ladder.mine(developerId), {
      auth: true,
      response: { 200: t.Array(LadderEntry), ...errorResponses(401) },
      detail: { tags: ["ladder"], summary: "Your ladder entries", description: "Each with its status and, for a paused one, why (a reason you can act on; the entry resumes by itself)." },
    })
    .get(
      "/api/ladder",
      async ({ query, set }) => withNextLink(set, await ladder.standings(query.format ?? "heads-up", query), "/api/ladder", (after) => ({ format: query.format, limit: query.limit, after })),
      {
        query: StandingsQuery,
        response: { 200: t.Array(LadderStanding), ...errorResponses(400) },
        detail: { tags: ["ladder"], summary: "Ladder standings", description: `The bots entered in a format, by rating (mu − 3·sigma) descending, then botId. ${PAGING_RULE}` },
      },
    );
}
