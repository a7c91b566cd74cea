import { Elysia } from "elysia";
import type { Db } from "../../db";
import type { Clock } from "../../lib/clock";
import { AppError, errors } from "../../lib/errors";
import { PAGE, type Page } from "../../lib/paging";
import { LADDER_FORMATS } from "../../db/schema";
import type { Bots } from "../bots/service";
import type { Ladder } from "../ladder/service";
import type { Matches } from "../matches/service";
import type { Ratings } from "../ratings/service";
import type { Stats } from "../stats/service";
import type { Tables } from "../tables/service";
import type { Tournaments } from "../competitions/tournaments";
import { accountModule, type AccountDeps } from "./account";
import { clientScript, STYLESHEET } from "./assets";
import { ladderPage } from "./ladder-page";
import { htmlResponse, notFoundPage } from "./layout";
import { livePage, replayPage, tvPage } from "./live-pages";
import { TvChannel, type TvSettings } from "./tv";
import { botPage } from "./bot-page";
import { leaderboardPage, lobbyPage, type MatchSummary } from "./pages";
import { tournamentPage, tournamentsPage } from "./tournament-pages";

export interface WebDeps extends AccountDeps {
  tables: Tables;
  matches: Matches;
  stats: Stats;
  ratings: Ratings;
  bots: Bots;
  ladder: Ladder;
  tournaments: Tournaments;
  leaderboardMinMatches: number;
  db: Db;
  clock: Clock;
  tv: TvSettings;
}

/** A 404 from a service becomes the HTML 404 page; anything else goes to the one error path. */
async function orNotFound(what: string, render: () => Promise<string>): Promise<Response> {
  try {
    return htmlResponse(await render());
  } catch (error) {
    if (error instanceof AppError && (error.status === 404 || error.status === 400)) return notFoundPage(what);
    throw error;
  }
}

/** The lobby page lists as many tables as one page of GET /api/tables can hold. */
const LOBBY_SHOWN = PAGE.max;
/** The /ladder page shows the top of each format's standings (GET /api/ladder pages through them all). */
const STANDINGS_SHOWN = 100;
const items = <T>(page: Page<T>): T[] => page.items;

const asset = (body: string, type: string) => new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=300" } });

/**
 * The web face: server-rendered pages of public information (what the JSON API shows anyone),
 * with a small script where a page moves (the live table, the replay viewer).
 */
export function webModule(deps: WebDeps) {
  const names = (botIds: Iterable<string>) => deps.bots.namesOf([...new Set(botIds)]);
  // Bundled once per process, now rather than on the first visitor's request.
  void clientScript("live").catch((error) => console.error("bundling the web pages' scripts failed", error));
  const tv = new TvChannel(deps.db, deps.matches, (ids) => deps.bots.namesOf(ids), deps.clock, deps.tv);
  return new Elysia({ name: "module:web" })
    .use(accountModule(deps))
    .get("/tv", async () => htmlResponse(tvPage(await tv.now(), deps.clock.now(), deps.tv)), { detail: { hide: true } })
    .get("/tv/program.json", async () => Response.json({ program: await tv.now(), serverNow: deps.clock.now() }, { headers: { "cache-control": "no-store" } }), { detail: { hide: true } })
    .get("/", async () => {
      const [tables, matches, board] = await Promise.all([deps.tables.lobby({ limit: LOBBY_SHOWN }).then(items), deps.matches.list({ limit: 10 }).then(items), deps.stats.leaderboard({ limit: 10 }).then(items)]);
      const ids = [...tables.flatMap((t) => t.seats.map((s) => s.botId)), ...matches.flatMap((m) => m.players.map((p) => p.botId)), ...board.map((e) => e.botId)];
      const kinds = await deps.matches.kindsOf(matches.map((m) => m.matchId));
      return htmlResponse(lobbyPage(tables, matches as MatchSummary[], board, await names(ids), kinds));
    }, { detail: { hide: true } })
    .get("/leaderboard", async () => {
      const [board, ratings] = await Promise.all([deps.stats.leaderboard({ limit: 100 }).then(items), deps.ratings.list({ limit: 100 }).then(items)]);
      const ids = [...board, ...ratings].map((e) => e.botId);
      const [named, house] = await Promise.all([names(ids), deps.bots.houseBots(ids)]);
      return htmlResponse(leaderboardPage(board, ratings, deps.leaderboardMinMatches, named, house));
    }, { detail: { hide: true } })
    .get("/ladder", async () => {
      const [standings, liveTables, house] = await Promise.all([
        Promise.all(LADDER_FORMATS.map(async (format) => ({ format, rows: (await deps.ladder.standings(format, { limit: STANDINGS_SHOWN })).items }))),
        deps.tables.lobby({ limit: LOBBY_SHOWN, ladderOnly: true }).then(items),
        deps.ladder.houseNow(),
      ]);
      const minMatches = deps.leaderboardMinMatches;
      return htmlResponse(ladderPage({ standings, liveTables, minMatches, house, names: await names(liveTables.flatMap((t) => t.seats.map((s) => s.botId))) }));
    }, { detail: { hide: true } })
    .get("/tournaments", async () => {
      const lists = await Promise.all((["registering", "running", "finished"] as const).map(async (status) => [status, (await deps.tournaments.list({ status, limit: 50 })).items] as const));
      return htmlResponse(tournamentsPage(new Map(lists)));
    }, { detail: { hide: true } })
    .get("/tournaments/:id", ({ params }) =>
      orNotFound("No tournament with this id.", async () => {
        const t = await deps.tournaments.get(params.id);
        const ids = [...t.entries.map((e) => e.botId), ...(t.places ?? []).map((p) => p.botId), ...(t.matches ?? []).flatMap((m) => m.players)];
        return tournamentPage(t, await names(ids));
      }), { detail: { hide: true } })
    .get("/bots/:botId", ({ params }) =>
      orNotFound("No bot with this id.", async () => {
        const bot = await deps.bots.find(params.botId);
        const [stats, rating, matches, ladder, [owned], house, ratingHistory, opponents] = await Promise.all([
          deps.stats.ofBot(bot.botId),
          deps.ratings.ofBot(bot.botId),
          deps.matches.list({ botId: bot.botId, limit: 30 }).then(items),
          deps.ladder.ofBot(bot.botId),
          deps.bots.ownedViews([bot]),
          deps.bots.houseBots([bot.botId]),
          deps.ratings.history(bot.botId),
          deps.ratings.byOpponent(bot.botId),
        ]);
        const kinds = await deps.matches.kindsOf(matches.map((m) => m.matchId));
        // Whether the service runs its code is public (docs/HOSTED.md); its code and versions are not shown.
        const view = { botId: bot.botId, name: bot.name, description: bot.description, createdAt: bot.createdAt, hosted: owned.hosted, house: house.has(bot.botId) };
        const named = await names([...matches.flatMap((m) => m.players.map((p) => p.botId)), ...opponents.map((o) => o.opponentId)]);
        return botPage({ bot: view, stats, rating, matches: matches as MatchSummary[], kinds, ladder, ratingHistory, opponents }, named);
      }), { detail: { hide: true } })
    .get("/matches/:matchId", ({ params }) =>
      orNotFound("No completed match with this id.", async () => {
        const match = (await deps.matches.withVoidedHands(params.matchId)) as MatchSummary & { voidedHands: number[] };
        return replayPage(match, await names(match.players.map((p) => p.botId)));
      }), { detail: { hide: true } })
    .get("/matches/:matchId/hands/:handNumber", ({ params }) =>
      orNotFound("No such hand in a completed match.", async () => {
        const match = (await deps.matches.withVoidedHands(params.matchId)) as MatchSummary & { voidedHands: number[] };
        const hand = /^[0-9]{1,9}$/.test(params.handNumber) ? Number(params.handNumber) : 0;
        if (!Number.isSafeInteger(hand) || hand < 1 || hand > match.handsPlayed + match.voidedHands.length) throw errors.notFound("Hand");
        return replayPage(match, await names(match.players.map((p) => p.botId)), hand);
      }), { detail: { hide: true } })
    .get("/tables/:tableId", ({ params }) =>
      orNotFound("No table with this id.", async () => {
        const table = await deps.tables.get(params.tableId);
        return livePage(table, await names(table.seats.map((s) => s.botId)));
      }), { detail: { hide: true } })
    .get("/assets/site.css", () => asset(STYLESHEET, "text/css; charset=utf-8"), { detail: { hide: true } })
    .get("/assets/:script", async ({ params }) => {
      const body = params.script.endsWith(".js") ? await clientScript(params.script.slice(0, -3)) : undefined;
      return body === undefined ? notFoundPage("No such asset.") : asset(body, "text/javascript; charset=utf-8");
    }, { detail: { hide: true } });
}
