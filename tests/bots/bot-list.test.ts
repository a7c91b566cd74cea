import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createHarness, type Harness } from "../support/app";

setDefaultTimeout(60_000);

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await createHarness("bot_list", { MAX_BOTS_PER_DEVELOPER: "1000" });
  token = (await h.registerDeveloper()).token;
  for (let i = 0; i < 25; i++) {
    expect((await h.call("POST", "/api/bots", { token, body: { name: `listed-${i}` } })).status).toBe(201);
    h.clock.advance(i % 3 === 0 ? 0 : 7); // some bots share a createdAt: the botId orders them
  }
});
afterAll(() => h.close());

const ids = (body: Array<{ botId: string }>) => body.map((b) => b.botId);

describe("GET /api/bots at scale: the whole list, pages, caching", () => {
  test("following Link rel=next from a first page yields the whole list once, in order; the last page has no Link", async () => {
    const whole = await h.call("GET", "/api/bots");
    expect(whole.body).toHaveLength(25);
    const seen: string[] = [];
    let path: string | null = "/api/bots?limit=4";
    let pages = 0;
    while (path) {
      const page = await h.call("GET", path);
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(4);
      seen.push(...ids(page.body));
      const link = page.headers.get("link");
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
      pages += 1;
    }
    expect(pages).toBe(7);
    expect(seen).toEqual(ids(whole.body));
  });

  test("the whole list carries an ETag: If-None-Match gives 304 until a bot is added, which the next list shows", async () => {
    const first = await h.call("GET", "/api/bots");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"bots-/);
    const again = await h.app.handle(new Request("http://localhost/api/bots", { headers: { "if-none-match": etag } }));
    expect(again.status).toBe(304);
    const added = (await h.call("POST", "/api/bots", { token, body: { name: "late" } })).body.botId;
    const after = await h.call("GET", "/api/bots");
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(ids(after.body).at(-1)).toBe(added);
    expect(ids(after.body).slice(0, -1)).toEqual(ids(first.body));
  });

  test("a bot committed out of order (older createdAt, written by another node) still appears, in its place", async () => {
    const before = ids((await h.call("GET", "/api/bots")).body);
    const [{ developer_id }] = (await h.database.db.execute(sql`select developer_id from bots limit 1`)) as any;
    await h.database.db.execute(
      sql`insert into bots (id, developer_id, name, description, api_key_hash, created_at) values ('bot_0000early', ${developer_id}, 'early', '', 'hash-early', '2000-01-01T00:00:00Z')`,
    );
    const listed = ids((await h.call("GET", "/api/bots")).body);
    expect(listed).toEqual(["bot_0000early", ...before]);
  });

  test("bad paging is a 400 in the SPEC shape: unknown after, limit out of range", async () => {
    for (const query of ["after=bot_nope", "limit=0", "limit=1001", "after="]) {
      const response = await h.call("GET", `/api/bots?${query}`);
      expect([response.status, response.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    }
  });
});
