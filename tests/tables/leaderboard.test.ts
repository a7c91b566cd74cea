import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { botStats } from "../../src/db/schema";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("leaderboard");

describe("the leaderboard", () => {
  test("a bot appears at its 10th match, not its 9th", async () => {
    const dev = await h.fundedDeveloper();
    const hero = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "hero", strategy: "caller" } })).body.botId;
    const listed = async () => (await h.call("GET", "/api/stats?limit=500")).body.map((e: any) => e.botId);
    for (let match = 1; match <= 10; match++) {
      const villain = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: `villain${match}`, strategy: "caller" } })).body.botId;
      const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 1 } })).body.tableId;
      await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: hero } });
      await h.call("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: villain } });
      await h.app.services.host.settled();
      expect((await h.call("GET", `/api/stats/${hero}`)).body.matchesPlayed).toBe(match);
      expect((await listed()).includes(hero)).toBe(match >= 10);
    }
    const entry = (await h.call("GET", "/api/stats?limit=500")).body.find((e: any) => e.botId === hero);
    const stats = (await h.call("GET", `/api/stats/${hero}`)).body;
    expect(entry).toEqual({ botId: hero, netChips: stats.netChips, matchesPlayed: 10 });
    await h.expectAuditClean();
  });

  test("ordering: netChips desc, then matchesPlayed desc, then botId; limit and offset", async () => {
    const rows = [
      { botId: "bot_zz_b", netChips: 500, matchesPlayed: 12 },
      { botId: "bot_zz_a", netChips: 500, matchesPlayed: 12 },
      { botId: "bot_zz_c", netChips: 500, matchesPlayed: 15 },
      { botId: "bot_zz_d", netChips: 90_000, matchesPlayed: 10 },
      { botId: "bot_zz_e", netChips: -50, matchesPlayed: 30 },
      { botId: "bot_zz_f", netChips: 100_000, matchesPlayed: 9 },
    ];
    await h.database.db.insert(botStats).values(rows);
    const board = (await h.call("GET", "/api/stats?limit=500")).body.filter((e: any) => e.botId.startsWith("bot_zz_"));
    expect(board.map((e: any) => e.botId)).toEqual(["bot_zz_d", "bot_zz_c", "bot_zz_a", "bot_zz_b", "bot_zz_e"]);
    const all = (await h.call("GET", "/api/stats?limit=500")).body;
    const page = (await h.call("GET", "/api/stats?limit=2&offset=1")).body;
    expect(page).toEqual(all.slice(1, 3));
    expect(all.length).toBeGreaterThanOrEqual(board.length);
    for (const e of all) expect(Object.keys(e).sort()).toEqual(["botId", "matchesPlayed", "netChips"]);
    expect((await h.call("GET", "/api/stats?limit=0")).status).toBe(400);
    expect((await h.call("GET", "/api/stats?offset=-1")).status).toBe(400);
  });
});
