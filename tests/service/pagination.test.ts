import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { PAGE } from "../../src/lib/paging";
import { useHarness } from "../support/app";

setDefaultTimeout(120_000);

const h = useHarness("pagination", { LEADERBOARD_MIN_MATCHES: "1", MAX_OPEN_TABLES_PER_DEVELOPER: "100" }, { beforeClose: (harness) => harness.expectAuditClean() });
let alice: { token: string; bots: string[] };
let bob: { token: string; bots: string[] };
const WAITING_TABLES = PAGE.default + 3;

async function developer(prefix: string) {
  const dev = await h.fundedDeveloper();
  const bots: string[] = [];
  for (const strategy of ["caller", "tight", "raiser"]) {
    bots.push((await h.call("POST", "/api/bots", { token: dev.token, body: { name: `${prefix}-${strategy}`, strategy } })).body.botId);
  }
  return { token: dev.token, bots };
}

async function headsUp(a: { token: string; botId: string }, b: { token: string; botId: string }) {
  const table = await h.call("POST", "/api/tables", { token: a.token, body: { maxPlayers: 2, buyIn: 100, maxHands: 3 } });
  for (const p of [a, b]) expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
}

beforeAll(async () => {
  alice = await developer("alice");
  bob = await developer("bob");
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 3; i++) await headsUp({ token: alice.token, botId: alice.bots[i] }, { token: bob.token, botId: bob.bots[(i + round) % 3] });
    await h.app.services.host.settled();
    h.clock.advance(round === 1 ? 0 : 1_000); // some rows share a timestamp: ids break the ties
  }
  await h.app.services.ratingsApplier.settled();
  for (let i = 0; i < WAITING_TABLES; i++) {
    expect((await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 2, buyIn: 100 } })).status).toBe(201);
    if (i % 4 === 0) h.clock.advance(5);
  }
});

const nextOf = (headers: Headers): string | null => {
  const link = headers.get("link");
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match).not.toBeNull();
  return match![1];
};

/** Follows Link rel=next from `path` to the end; every page holds at most `limit` items. */
async function follow(path: string, limit: number, token?: string) {
  const items: any[] = [];
  let pages = 0;
  for (let next: string | null = path; next !== null; pages++) {
    // Bounded: a Link that led back (a loop) fails here, not at the test's timeout.
    expect(pages).toBeLessThan(1_000);
    const page = await h.call("GET", next, { token });
    expect(page.status).toBe(200);
    expect(Array.isArray(page.body)).toBe(true);
    expect(page.body.length).toBeLessThanOrEqual(limit);
    items.push(...page.body);
    next = nextOf(page.headers);
    if (next !== null) expect(page.body).toHaveLength(limit);
  }
  return { items, pages };
}

const LISTS: Array<{ name: string; path: string; id: string; owner?: boolean }> = [
  { name: "the lobby", path: "/api/tables", id: "tableId" },
  { name: "matches", path: "/api/matches", id: "matchId" },
  { name: "a bot's matches (the filter is kept)", path: "/api/matches?botId=BOT", id: "matchId" },
  { name: "transactions", path: "/api/me/transactions", id: "transactionId", owner: true },
  { name: "the leaderboard", path: "/api/stats", id: "botId" },
  { name: "ratings", path: "/api/ratings", id: "botId" },
  { name: "my bots", path: "/api/me/bots", id: "botId", owner: true },
  { name: "all bots", path: "/api/bots", id: "botId" },
];

describe("one pagination style on every list: limit, Link rel=next, keyset cursors", () => {
  for (const list of LISTS) {
    test(`${list.name}: following Link from limit=2 yields the whole list once, in order; the last page has no Link`, async () => {
      const path = list.path.replace("BOT", alice.bots[0]);
      const token = list.owner ? alice.token : undefined;
      const join = path.includes("?") ? "&" : "?";
      const whole = await h.call("GET", `${path}${join}limit=${PAGE.max}`, { token });
      expect(whole.status).toBe(200);
      expect(whole.headers.get("link")).toBeNull();
      expect(whole.body.length).toBeGreaterThanOrEqual(3);
      const { items, pages } = await follow(`${path}${join}limit=2`, 2, token);
      expect(items.map((item) => item[list.id])).toEqual(whole.body.map((item: any) => item[list.id]));
      expect(pages).toBe(Math.ceil(whole.body.length / 2));
    });
  }

  test("no silent cap: the lobby without parameters is one default page with a Link, and the Link reaches every table", async () => {
    const first = await h.call("GET", "/api/tables");
    expect(first.body).toHaveLength(PAGE.default);
    expect(nextOf(first.headers)).toMatch(/^\/api\/tables\?limit=50&before=tbl_/);
    const { items } = await follow("/api/tables", PAGE.default);
    expect(items.length).toBe(WAITING_TABLES);
    expect(new Set(items.map((t) => t.tableId)).size).toBe(items.length);
  });

  test("stable under inserts: a table created between two pages neither repeats nor shifts the next page", async () => {
    const before = (await h.call("GET", `/api/tables?limit=${PAGE.max}`)).body.map((t: any) => t.tableId);
    const first = await h.call("GET", "/api/tables?limit=3");
    const created = await h.call("POST", "/api/tables", { token: bob.token, body: { maxPlayers: 2, buyIn: 100 } });
    expect(created.status).toBe(201);
    const second = await h.call("GET", nextOf(first.headers)!);
    expect(second.body.map((t: any) => t.tableId)).toEqual(before.slice(3, 6));
    expect((await h.call("GET", "/api/tables?limit=1")).body[0].tableId).toBe(created.body.tableId);
  });

  test("stable under inserts: a bot entering the leaderboard at the top does not shift the page after the cursor", async () => {
    const first = await h.call("GET", "/api/stats?limit=2");
    const expected = (await h.call("GET", `/api/stats?limit=${PAGE.max}`)).body.slice(2, 4);
    const newcomer = (await h.call("POST", "/api/bots", { token: bob.token, body: { name: "newcomer" } })).body.botId;
    await h.database.db.execute(sql`insert into bot_stats (bot_id, matches_played, matches_won, hands_played, hands_won, total_buy_ins, total_winnings, net_chips, biggest_win, biggest_loss)
      values (${newcomer}, 5, 5, 50, 40, 500, 100500, 100000, 50000, 0)`);
    expect((await h.call("GET", "/api/stats?limit=1")).body[0].botId).toBe(newcomer);
    expect((await h.call("GET", nextOf(first.headers)!)).body).toEqual(expected);
    // The brief's offset still works, and does shift (that is why Link uses a cursor).
    expect((await h.call("GET", "/api/stats?limit=2&offset=2")).body[0]).not.toEqual(expected[0]);
  });

  test("bad paging input is a 400 naming the field, never a 500", async () => {
    const cases: Array<[string, string]> = [
      ["/api/stats?after=not_a_cursor", "after"],
      [`/api/stats?after=${Buffer.from(JSON.stringify(["x", 1, "bot_1"])).toString("base64url")}`, "after"],
      [`/api/ratings?after=${Buffer.from(JSON.stringify([1.5, "bot'; drop"])).toString("base64url")}`, "after"],
      ["/api/ratings?after=%00", "after"],
      ["/api/tables?before=tbl_nope", "before"],
      ["/api/tables?limit=0", "limit"],
      [`/api/matches?limit=${PAGE.max + 1}`, "limit"],
      ["/api/bots?after=bot_nope", "after"],
    ];
    for (const [path, field] of cases) {
      const response = await h.call("GET", path);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
      expect(response.body.error.details.field).toBe(field);
    }
  });

  test("the OpenAPI document gives every paged list the same limit bounds and documents its Link header", async () => {
    const doc = (await h.call("GET", "/swagger/json")).body;
    const paged = Object.entries<any>(doc.paths).filter(([, item]) => item.get?.parameters?.some((p: any) => p.name === "limit"));
    expect(paged.map(([path]) => path).sort()).toEqual(
      ["/api/bots", "/api/bots/{botId}/code", "/api/bots/{botId}/logs", "/api/ladder", "/api/matches", "/api/matches/{id}/hands", "/api/me/bots", "/api/me/transactions", "/api/ratings", "/api/stats", "/api/tables", "/api/tournaments"].sort(),
    );
    let boundsChecked = 0;
    for (const [path, item] of paged) {
      expect(item.get.responses["200"].headers?.Link).toBeDefined();
      if (path.endsWith("/hands")) continue;
      const limit = item.get.parameters.find((p: any) => p.name === "limit").schema;
      expect({ path, min: limit.minimum, max: limit.maximum }).toEqual({ path, min: 1, max: PAGE.max });
      boundsChecked += 1;
    }
    // Every paged list but the hands (their own bounds) was checked.
    expect(boundsChecked).toBe(paged.length - 1);
  });
});
