import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { matches as matchesTable } from "../../src/db/schema";
import { recordedMatch } from "../../src/modules/ratings/store";
import { PUBLIC, visibleHand } from "../../src/modules/matches/visibility";
import { phhOfHands, type StoredHand } from "../../src/modules/match-host/hand-history";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

const HANDS = 450;
const h = useHarness("hands_paging");
let matchId: string;
let ownerToken: string;

beforeAll(async () => {
  const dev = await h.fundedDeveloper();
  ownerToken = dev.token;
  // Two callers never raise: each hand moves at most a big blind, so nobody busts in 450 hands.
  const table = await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: HANDS, buyIn: 2000, seed: "paging" } });
  for (const name of ["left", "right"]) {
    const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name, strategy: "caller" } });
    expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: bot.body.botId } })).status).toBe(201);
  }
  await h.app.services.host.settled();
  const [match] = (await h.call("GET", "/api/matches?limit=1")).body;
  expect(match.handsPlayed).toBe(HANDS);
  matchId = match.matchId;
});

/** The path of a `Link: <path>; rel="next"` header, or null. */
function nextOf(headers: Headers): string | null {
  const link = headers.get("link");
  if (link === null) return null;
  const parsed = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(parsed).not.toBeNull();
  return parsed![1];
}

async function followPages(first: string) {
  const pages: Array<{ status: number; body: any; headers: Headers }> = [];
  for (let path: string | null = first; path !== null; path = nextOf(pages[pages.length - 1].headers)) {
    pages.push(await h.call("GET", path));
    expect(pages.length).toBeLessThan(100);
  }
  return pages;
}

async function rawPhh(path: string) {
  const response = await h.app.handle(new Request(`http://localhost${path}`));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("GET /api/matches/:id/hands, paged", () => {
  test("the default page is the first 200 hands, with a Link to the next; following Links yields every hand once, in order", async () => {
    const pages = await followPages(`/api/matches/${matchId}/hands`);
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(pages.map((p) => p.body.hands.length)).toEqual([200, 200, 50]);
    expect(pages[0].body.matchId).toBe(matchId);
    expect(pages[0].headers.get("link")).toBe(`</api/matches/${matchId}/hands?limit=200&after=200>; rel="next"`);
    expect(pages[2].headers.get("link")).toBeNull();
    const numbers = pages.flatMap((p) => p.body.hands.map((hand: any) => hand.handNumber));
    expect(numbers).toEqual(Array.from({ length: HANDS }, (_, i) => i + 1));
    expect(Object.keys(pages[0].body.hands[0]).sort()).toEqual(["bigBlind", "board", "button", "events", "handNumber", "players", "pots", "smallBlind"]);
  });

  test("limit and after choose the page; the Link keeps the limit", async () => {
    const pages = await followPages(`/api/matches/${matchId}/hands?limit=64&after=100`);
    expect(pages.map((p) => p.body.hands.length)).toEqual([64, 64, 64, 64, 64, 30]);
    expect(pages[1].headers.get("link")).toBe(`</api/matches/${matchId}/hands?limit=64&after=228>; rel="next"`);
    expect(pages[0].body.hands[0].handNumber).toBe(101);
    expect(pages[5].body.hands.at(-1).handNumber).toBe(HANDS);
    const one = await h.call("GET", `/api/matches/${matchId}/hands?after=${HANDS - 1}`);
    expect(one.body.hands.map((hand: any) => hand.handNumber)).toEqual([HANDS]);
    expect(one.headers.get("link")).toBeNull();
    const exact = await h.call("GET", `/api/matches/${matchId}/hands?limit=50&after=400`);
    expect(exact.body.hands).toHaveLength(50);
    expect(exact.headers.get("link")).toBeNull();
    for (const after of [HANDS, 1_000_000]) {
      const past = await h.call("GET", `/api/matches/${matchId}/hands?after=${after}`);
      expect(past).toMatchObject({ status: 200, body: { matchId, hands: [] } });
      expect(past.headers.get("link")).toBeNull();
    }
  });

  test("every page shows the reader what it may see: the owner of both bots every hole card, others what was public", async () => {
    const holeCards = (body: any) => body.hands.flatMap((hand: any) => hand.events.filter((e: any) => e.type === "hole_cards").map((e: any) => e.cards));
    const path = `/api/matches/${matchId}/hands?limit=100&after=300`;
    const owner = await h.call("GET", path, { token: ownerToken });
    expect(owner.headers.get("link")).toBe(`</api/matches/${matchId}/hands?limit=100&after=400>; rel="next"`);
    // Hands 301-400, two seats each: every one of the 200 hole-card pairs is there.
    expect(holeCards(owner.body)).toHaveLength(200);
    expect(holeCards(owner.body).every((cards: unknown) => Array.isArray(cards))).toBe(true);
    const anonymous = await h.call("GET", path);
    expect(holeCards(anonymous.body).some((cards: unknown) => cards === null)).toBe(true);
    const ownerPhh = await h.app.handle(new Request(`http://localhost${path}&format=phh`, { headers: { authorization: `Bearer ${ownerToken}` } }));
    expect(await ownerPhh.text()).not.toContain("????");
  });

  test("PHH is streamed whole up to 10,000 hands, byte for byte the hand history set of every stored hand", async () => {
    const rows = (await recordedMatch(h.database.db, matchId)).hands;
    expect(rows).toHaveLength(HANDS);
    const [match] = await h.database.db.select().from(matchesTable).where(eq(matchesTable.id, matchId));
    // Anonymous: the hole cards that were public at the table.
    const fields = { matchId, tableId: match.tableId, seeded: true, seatCount: 2 };
    const expected = phhOfHands(fields, rows.map((hand: StoredHand) => visibleHand(hand, PUBLIC)));
    const whole = await rawPhh(`/api/matches/${matchId}/hands?format=phh`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("application/toml; charset=utf-8");
    expect(whole.headers.get("link")).toBeNull();
    expect(whole.text).toBe(expected);
    expect(whole.text.match(/^\[\d+\]$/gm)).toHaveLength(HANDS);
  });

  test("PHH pages (limit/after/Link) concatenate into the whole set", async () => {
    const texts: string[] = [];
    let path: string | null = `/api/matches/${matchId}/hands?format=phh&limit=120`;
    while (path !== null) {
      // Bounded: a Link that led back (a loop) fails here, not at the test's timeout.
      expect(texts.length).toBeLessThan(10);
      const page = await rawPhh(path);
      expect(page.status).toBe(200);
      texts.push(page.text);
      path = nextOf(page.headers);
    }
    expect(texts.map((text) => text.match(/^\[\d+\]$/gm)!.length)).toEqual([120, 120, 120, 90]);
    expect(texts[1].startsWith("[121]\n")).toBe(true);
    expect(texts.join("\n")).toBe((await rawPhh(`/api/matches/${matchId}/hands?format=phh`)).text);
  });

  test("bad paging parameters are 400 in the SPEC shape naming the field; unknown matches 404", async () => {
    const cases: Array<[string, string]> = [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["format=phh&limit=10001", "limit"],
      ["limit=1.5", "limit"],
      ["limit=ten", "limit"],
      ["after=-1", "after"],
      ["after=abc", "after"],
      ["after=1e99", "after"],
      ["page=2", "page"],
    ];
    for (const [query, field] of cases) {
      const response = await h.call("GET", `/api/matches/${matchId}/hands?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe("VALIDATION_ERROR");
      expect(typeof response.body.error.message).toBe("string");
      expect(response.body.error.details.field).toBe(field);
    }
    expect((await h.call("GET", `/api/matches/${matchId}/hands?format=phh&limit=1001`)).status).toBe(200);
    for (const format of ["json", "phh"]) {
      const missing = await h.call("GET", `/api/matches/m_nope/hands?format=${format}&limit=5`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("NOT_FOUND");
    }
    await h.expectAuditClean();
  });
});
