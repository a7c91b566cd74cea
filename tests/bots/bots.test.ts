import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("bots");

describe("bots", () => {
  test("create returns the api key once; the list shows exactly the brief's four fields, a get those and whether it is hosted (public by design)", async () => {
    const dev = await h.registerDeveloper();
    const created = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "Alpha", description: "first" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      botId: expect.stringMatching(/^bot_/),
      name: "Alpha",
      description: "first",
      createdAt: new Date(h.clock.now()).toISOString(),
      strategy: null,
      apiKey: expect.stringMatching(/^pbk_[A-Za-z0-9_-]{43}$/),
    });
    const list = await h.call("GET", "/api/bots");
    expect(list.status).toBe(200);
    const listed = list.body.find((b: any) => b.botId === created.body.botId);
    expect(Object.keys(listed).sort()).toEqual(["botId", "createdAt", "description", "house", "name"]);
    expect(listed.house).toBe(false);
    const one = await h.call("GET", `/api/bots/${created.body.botId}`);
    expect(one.body).toEqual({ botId: created.body.botId, name: "Alpha", description: "first", createdAt: created.body.createdAt, hosted: false, house: false });
    expect(JSON.stringify(list.body)).not.toContain(created.body.apiKey);
    const stored = await h.app.services.bots.findByApiKey(created.body.apiKey);
    expect(stored?.botId).toBe(created.body.botId);
  });

  test("built-in strategies are accepted; unknown ones are 400", async () => {
    const dev = await h.registerDeveloper();
    for (const strategy of ["random", "caller", "tight", "raiser"]) {
      const r = await h.call("POST", "/api/bots", { token: dev.token, body: { name: `b-${strategy}`, strategy } });
      expect(r.status).toBe(201);
      expect(r.body.strategy).toBe(strategy);
    }
    const bad = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "x", strategy: "gto-solver" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe("strategy");
  });

  test("a name is unique per developer, not across developers", async () => {
    const a = await h.registerDeveloper();
    const b = await h.registerDeveloper();
    expect((await h.call("POST", "/api/bots", { token: a.token, body: { name: "Same" } })).status).toBe(201);
    const dup = await h.call("POST", "/api/bots", { token: a.token, body: { name: "Same" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("BOT_NAME_TAKEN");
    expect((await h.call("POST", "/api/bots", { token: b.token, body: { name: "Same" } })).status).toBe(201);
  });

  test("rotate-key: owner only; the old key stops working", async () => {
    const owner = await h.registerDeveloper();
    const other = await h.registerDeveloper();
    const bot = await h.call("POST", "/api/bots", { token: owner.token, body: { name: "Rot" } });
    const forbidden = await h.call("POST", `/api/bots/${bot.body.botId}/rotate-key`, { token: other.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe("FORBIDDEN");
    const missing = await h.call("POST", `/api/bots/bot_doesnotexist/rotate-key`, { token: owner.token });
    expect(missing.status).toBe(404);
    const rotated = await h.call("POST", `/api/bots/${bot.body.botId}/rotate-key`, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.apiKey).not.toBe(bot.body.apiKey);
    expect(await h.app.services.bots.findByApiKey(bot.body.apiKey)).toBeUndefined();
    expect((await h.app.services.bots.findByApiKey(rotated.body.apiKey))?.botId).toBe(bot.body.botId);
  });

  test("GET /api/me/bots lists only the caller's bots, with their strategy", async () => {
    const mine = await h.registerDeveloper();
    const other = await h.registerDeveloper();
    await h.call("POST", "/api/bots", { token: mine.token, body: { name: "remote-one" } });
    await h.call("POST", "/api/bots", { token: mine.token, body: { name: "house", strategy: "tight" } });
    await h.call("POST", "/api/bots", { token: other.token, body: { name: "not-mine" } });
    const listed = await h.call("GET", "/api/me/bots", { token: mine.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((b: any) => [b.name, b.strategy])).toEqual([["remote-one", null], ["house", "tight"]]);
    expect(JSON.stringify(listed.body)).not.toContain("pbk_");
    expect((await h.call("GET", "/api/me/bots")).status).toBe(401);
  });

  test("a built-in gets no api key (the service plays it; it never connects), and has none to rotate", async () => {
    const dev = await h.registerDeveloper();
    const created = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "house-bot", strategy: "caller" } });
    expect(created.status).toBe(201);
    expect([created.body.strategy, created.body.apiKey]).toEqual(["caller", null]);
    const rotated = await h.call("POST", `/api/bots/${created.body.botId}/rotate-key`, { token: dev.token });
    expect(rotated.status).toBe(409);
    expect(rotated.body.error.code).toBe("BUILT_IN_BOT");
  });

  test("unknown bot is 404 NOT_FOUND", async () => {
    const r = await h.call("GET", "/api/bots/bot_nope");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { code: "NOT_FOUND", message: "Bot not found" } });
  });
});
