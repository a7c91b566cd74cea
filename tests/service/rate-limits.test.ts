import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp } from "../../src/app";
import { createHarness, harnessFor, type Harness } from "../support/app";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

describe("abuse limits", () => {
  let h: Harness;
  let server: TestServer;
  beforeAll(async () => {
    h = await createHarness("rate_limits", { AUTH_RATE_LIMIT_PER_MINUTE: "3" });
    server = await startTestServer("rate_limits_ws", { BOT_MESSAGES_PER_SECOND: "5" });
  });
  afterAll(async () => {
    await h.close();
    await server.close();
  });

  test("register and login share a per-IP budget: the 4th attempt in a minute is 429 with Retry-After, and it refills", async () => {
    const register = (i: number) => h.call("POST", "/api/auth/register", { body: { email: `rl${i}@example.com`, password: "password-123" } });
    expect((await register(1)).status).toBe(201);
    expect((await register(2)).status).toBe(201);
    expect((await h.call("POST", "/api/auth/login", { body: { email: "rl1@example.com", password: "password-123" } })).status).toBe(200);
    const limited = await register(3);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBe(20);
    const loginLimited = await h.call("POST", "/api/auth/login", { body: { email: "rl1@example.com", password: "password-123" } });
    expect(loginLimited.status).toBe(429);
    h.clock.advance(20_000);
    expect((await register(3)).status).toBe(201);
    expect((await register(4)).status).toBe(429);
    // Nothing was created by the refused attempts.
    const count: any = await h.database.db.execute(sql`select count(*)::int as n from developers`);
    expect((Array.isArray(count) ? count : count.rows)[0].n).toBe(3);
  });

  test("regression (per-process budgets): two processes on one database draw on one budget per address", async () => {
    const second = createApp({ db: h.database.db, dbKind: h.database.kind, config: h.config, jwtSecret: "test-secret", clock: h.clock, log: () => {} });
    const other = harnessFor(second, h.database, h.clock, h.config);
    h.clock.advance(60_000);
    const register = (via: typeof other, i: number) => via.call("POST", "/api/auth/register", { body: { email: `shared${i}@example.com`, password: "password-123" } });
    expect((await register(h, 1)).status).toBe(201);
    expect((await register(other, 2)).status).toBe(201);
    expect((await register(other, 3)).status).toBe(201);
    const refused = [await register(other, 4), await register(h, 5)];
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual([
      [429, "RATE_LIMITED"],
      [429, "RATE_LIMITED"],
    ]);
    await second.services.host.shutdown();
    await second.services.accounts.stopAll();
  });

  test("a bot flooding its socket gets RATE_LIMITED errors and its extra messages are dropped", async () => {
    const dev = await registerWithCredits(server, "flood");
    const bot = await createBot(server, dev.token, "flooder");
    const client = await new WsBot(server.url, bot.apiKey).connect();
    for (let i = 0; i < 30; i++) client.send({ type: "ping" });
    // Every ping is answered, with a pong or a refusal: the thirtieth answer is the last.
    await client.nth(30, (m) => m.type === "pong" || (m.type === "error" && m.code === "RATE_LIMITED"));
    const pongs = client.ofType("pong").length;
    const limited = client.ofType("error").filter((m) => m.code === "RATE_LIMITED").length;
    expect(pongs + limited).toBe(30);
    expect(pongs).toBeLessThanOrEqual(7);
    expect(limited).toBeGreaterThanOrEqual(23);
    client.disconnect();
  });

  test("illegal answers to an open request count against the budget: past it, the request is answered for the bot", async () => {
    const dev = await registerWithCredits(server, "illegal");
    const bot = await createBot(server, dev.token, "illegal");
    const house = await createBot(server, dev.token, "house", "caller");
    let flooded = false;
    const client = await new WsBot(server.url, bot.apiKey, (request, self) => {
      if (flooded) return { action: request.legalActions.includes("check") ? "check" : "call" };
      flooded = true;
      // Raises far beyond any stack: each one is illegal.
      for (let i = 0; i < 30; i++) self.send({ type: "action", requestId: request.requestId, action: "raise", amount: 10_000_000 });
      return "silent";
    }).connect();
    const table = (await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 2, actionTimeoutMs: 60_000 } })).body.tableId;
    for (const b of [bot, house]) await server.api("POST", `/api/tables/${table}/join`, { token: dev.token, body: { botId: b.botId } });
    await client.next((m) => m.type === "error" && m.code === "RATE_LIMITED", 10_000);
    // Answered for it at once (not after the 60 s deadline): the match goes on and ends.
    await client.next((m) => m.type === "match_ended", 10_000);
    const illegal = client.ofType("error").filter((m) => m.code === "ILLEGAL_ACTION").length;
    expect(illegal).toBeLessThanOrEqual(6);
    client.disconnect();
  });
});
