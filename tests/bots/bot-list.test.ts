import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { brotliDecompressSync } from "node:zlib";
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
      // Bounded: a Link that led back (a loop) fails here, not at the test's timeout.
      expect(pages).toBeLessThan(25);
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

describe("GET /api/bots cannot exhaust the server", () => {
  const decode = async (response: Response) => {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const encoding = response.headers.get("content-encoding");
    const plain = encoding === "br" ? brotliDecompressSync(bytes) : encoding === "gzip" ? Bun.gunzipSync(bytes) : bytes;
    return JSON.parse(new TextDecoder().decode(plain));
  };
  const whole = (acceptEncoding?: string) => h.app.handle(new Request("http://localhost/api/bots", { headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {} }));

  test("br, gzip and plain answers are the same list; each encoding has its own ETag and a 304", async () => {
    const plain = await whole();
    const expected = await decode(plain);
    expect(expected.length).toBeGreaterThan(25);
    let checked = 0;
    for (const encoding of ["br", "gzip"]) {
      const packed = await whole(`${encoding}, identity`);
      expect([packed.headers.get("content-encoding"), packed.headers.get("vary")]).toEqual([encoding, "Accept-Encoding"]);
      expect(packed.headers.get("etag")).not.toBe(plain.headers.get("etag"));
      expect(await decode(packed)).toEqual(expected);
      const again = await h.app.handle(new Request("http://localhost/api/bots", { headers: { "accept-encoding": encoding, "if-none-match": packed.headers.get("etag")! } }));
      expect(again.status).toBe(304);
      checked += 1;
    }
    expect(checked).toBe(2);
  });

  test("parallel requests share one body; a bot created meanwhile is in the next list", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => whole(i % 2 ? "br" : undefined)));
    const lists = await Promise.all(answers.map(decode));
    expect(new Set(lists.map((list) => JSON.stringify(list))).size).toBe(1);
    const added = (await h.call("POST", "/api/bots", { token, body: { name: "parallel-late" } })).body.botId;
    expect(ids(await decode(await whole("br"))).at(-1)).toBe(added);
  });

  test("beyond BOT_LIST_CONCURRENCY whole-list requests at once: 503 SERVICE_BUSY with Retry-After; pages still answer", async () => {
    const narrow = await createHarness("bot_list_narrow", { BOT_LIST_CONCURRENCY: "1" });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => narrow.call("GET", "/api/bots")));
      const busy = answers.filter((a) => a.status === 503);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(busy).toHaveLength(2);
      for (const a of busy) expect([a.body.error.code, a.headers.get("retry-after")]).toEqual(["SERVICE_BUSY", "1"]);
      expect((await narrow.call("GET", "/api/bots")).status).toBe(200);
      expect((await narrow.call("GET", "/api/bots?limit=5")).status).toBe(200);
    } finally {
      await narrow.close();
    }
  });

  test("a body with Content-Encoding is a 415 naming the encoding, and creates nothing", async () => {
    const before = (await h.call("GET", "/api/me/bots?limit=500", { token })).body.length;
    let refused = 0;
    for (const encoding of ["gzip", "br", "deflate, gzip"]) {
      const response = await h.call("POST", "/api/bots", { token, body: { name: `encoded-${refused}` }, headers: { "content-encoding": encoding } });
      expect([response.status, response.body.error.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
      expect(response.body.error.message).toContain(`"${encoding}"`);
      refused += 1;
    }
    expect(refused).toBe(3);
    expect((await h.call("GET", "/api/me/bots?limit=500", { token })).body.length).toBe(before);
    expect((await h.call("POST", "/api/bots", { token, body: { name: "identity-ok" }, headers: { "content-encoding": "identity" } })).status).toBe(201);
  });

  test("registrations per address per day are capped (REGISTRATIONS_PER_ADDRESS_PER_DAY), login is not", async () => {
    const capped = await createHarness("bot_list_registrations", { REGISTRATIONS_PER_ADDRESS_PER_DAY: "3" });
    try {
      const register = (i: number) => capped.call("POST", "/api/auth/register", { body: { email: `cap${i}@example.com`, password: "a long password" } });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await register(i)).status);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      const refused = await register(9);
      expect([refused.body.error.code, Number(refused.headers.get("retry-after"))]).toEqual(["RATE_LIMITED", expect.any(Number)]);
      expect(refused.body.error.message).toContain("3 registrations a day");
      expect((await capped.call("POST", "/api/auth/login", { body: { email: "cap0@example.com", password: "a long password" } })).status).toBe(200);
      capped.clock.advance(24 * 3600 * 1000);
      expect((await register(10)).status).toBe(201);
    } finally {
      await capped.close();
    }
  });
});
