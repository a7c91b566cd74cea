import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createApp } from "../../src/app";
import { harnessFor, useHarness } from "../support/app";
import { createBot, registerWithCredits, startTestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";

setDefaultTimeout(60_000);

const h = useHarness("lifecycle", {}, { beforeClose: (harness) => harness.expectAuditClean() });

async function developerWithBots(...names: string[]) {
  const dev = await h.fundedDeveloper();
  const bots: string[] = [];
  for (const name of names) bots.push((await h.call("POST", "/api/bots", { token: dev.token, body: { name } })).body.botId);
  return { ...dev, bots };
}

const balanceOf = async (token: string) => (await h.call("GET", "/api/me/balance", { token })).body.balance as number;

describe("DELETE /api/tables/:tableId: a waiting table, every seat refunded as a leave", () => {
  test("the creator deletes a table two developers' bots sit at: both are cashed out, the table is closed and leaves the lobby", async () => {
    const alice = await developerWithBots("a1");
    const bob = await developerWithBots("b1");
    const table = (await h.call("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 3, buyIn: 700 } })).body;
    for (const [dev, botId] of [[alice, alice.bots[0]], [bob, bob.bots[0]]] as const) {
      expect((await h.call("POST", `/api/tables/${table.tableId}/join`, { token: dev.token, body: { botId } })).status).toBe(201);
    }
    expect(await balanceOf(bob.token)).toBe(10_000 - 700);

    expect((await h.call("DELETE", `/api/tables/${table.tableId}`, { token: bob.token })).status).toBe(403);
    const closed = await h.call("DELETE", `/api/tables/${table.tableId}`, { token: alice.token });
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe("closed");
    expect(closed.body.refunds.sort((x: any, y: any) => (x.botId < y.botId ? -1 : 1))).toEqual(
      [{ botId: alice.bots[0], cashout: 700 }, { botId: bob.bots[0], cashout: 700 }].sort((x, y) => (x.botId < y.botId ? -1 : 1)),
    );
    expect(await balanceOf(alice.token)).toBe(10_000);
    expect(await balanceOf(bob.token)).toBe(10_000);
    const [latest] = (await h.call("GET", "/api/me/transactions?limit=1", { token: bob.token })).body;
    expect(latest).toMatchObject({ type: "cashout", amount: 700, botId: bob.bots[0], tableId: table.tableId });

    expect((await h.call("GET", `/api/tables/${table.tableId}`)).body.status).toBe("closed");
    expect((await h.call("GET", "/api/tables?limit=500")).body.map((t: any) => t.tableId)).not.toContain(table.tableId);
    const again = await h.call("DELETE", `/api/tables/${table.tableId}`, { token: alice.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("TABLE_NOT_WAITING");
    expect((await h.call("POST", `/api/tables/${table.tableId}/join`, { token: bob.token, body: { botId: bob.bots[0] } })).status).toBe(409);
    // The bots are free again: each can sit elsewhere.
    const next = (await h.call("POST", "/api/tables", { token: bob.token, body: { maxPlayers: 2 } })).body;
    expect((await h.call("POST", `/api/tables/${next.tableId}/join`, { token: bob.token, body: { botId: bob.bots[0] } })).status).toBe(201);
    expect((await h.call("DELETE", `/api/tables/${next.tableId}`, { token: bob.token })).status).toBe(200);
    await h.expectAuditClean();
  });

  test("a running or finished table is 409 TABLE_NOT_WAITING; unknown 404; no token 401; a bad id 400", async () => {
    const dev = await h.fundedDeveloper();
    const seat = async (tableId: string, strategy: string) => {
      const botId = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: `${strategy}-${tableId}`, strategy } })).body.botId;
      expect((await h.call("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId } })).status).toBe(201);
    };
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 200, maxHands: 2 } })).body;
    await seat(table.tableId, "caller");
    await seat(table.tableId, "raiser");
    const during = await h.call("DELETE", `/api/tables/${table.tableId}`, { token: dev.token });
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe("TABLE_NOT_WAITING");
    await h.app.services.host.settled();
    expect((await h.call("DELETE", `/api/tables/${table.tableId}`, { token: dev.token })).body.error.code).toBe("TABLE_NOT_WAITING");
    expect((await h.call("DELETE", "/api/tables/tbl_unknown", { token: dev.token })).status).toBe(404);
    expect((await h.call("DELETE", `/api/tables/${table.tableId}`)).status).toBe(401);
    expect((await h.call("DELETE", "/api/tables/bad%20id", { token: dev.token })).status).toBe(400);
  });
});

describe("DELETE /api/bots/:botId: retiring a bot", () => {
  test("refused while seated; once retired its records still resolve, joins and its key are refused, and its name is free", async () => {
    const dev = await developerWithBots("veteran", "spare");
    const [veteran] = dev.bots;
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 300 } })).body;
    expect((await h.call("POST", `/api/tables/${table.tableId}/join`, { token: dev.token, body: { botId: veteran } })).status).toBe(201);
    const seated = await h.call("DELETE", `/api/bots/${veteran}`, { token: dev.token });
    expect(seated.status).toBe(409);
    expect(seated.body.error.code).toBe("BOT_SEATED");
    expect(seated.body.error.details.tableId).toBe(table.tableId);
    expect((await h.call("POST", `/api/tables/${table.tableId}/leave`, { token: dev.token, body: { botId: veteran } })).status).toBe(200);

    const other = await h.registerDeveloper();
    expect((await h.call("DELETE", `/api/bots/${veteran}`, { token: other.token })).status).toBe(403);
    const retired = await h.call("DELETE", `/api/bots/${veteran}`, { token: dev.token });
    expect(retired.status).toBe(200);
    expect(retired.body.botId).toBe(veteran);
    const again = await h.call("DELETE", `/api/bots/${veteran}`, { token: dev.token });
    expect(again.body).toEqual(retired.body);

    // Records stay.
    expect((await h.call("GET", `/api/bots/${veteran}`)).body.name).toBe("veteran");
    expect((await h.call("GET", `/api/stats/${veteran}`)).status).toBe(200);
    expect((await h.call("GET", "/api/bots")).body.map((b: any) => b.botId)).toContain(veteran);
    const transactions = (await h.call("GET", "/api/me/transactions", { token: dev.token })).body;
    expect(transactions.filter((t: any) => t.botId === veteran).map((t: any) => t.type)).toEqual(["cashout", "buy_in"]);
    // It plays no more.
    expect((await h.call("GET", "/api/me/bots", { token: dev.token })).body.map((b: any) => b.botId)).toEqual([dev.bots[1]]);
    const join = await h.call("POST", `/api/tables/${table.tableId}/join`, { token: dev.token, body: { botId: veteran } });
    expect(join.status).toBe(409);
    expect(join.body.error.code).toBe("BOT_RETIRED");
    expect((await h.call("POST", `/api/bots/${veteran}/rotate-key`, { token: dev.token })).body.error.code).toBe("BOT_RETIRED");
    // Its name is free for a new bot.
    expect((await h.call("POST", "/api/bots", { token: dev.token, body: { name: "veteran" } })).status).toBe(201);
    expect((await h.call("POST", "/api/bots", { token: dev.token, body: { name: "veteran" } })).body.error.code).toBe("BOT_NAME_TAKEN");
  });

  test("a join racing the retirement either seats the bot (and retirement is refused) or is refused: never a retired bot at a table", async () => {
    const dev = await developerWithBots(...Array.from({ length: 8 }, (_, i) => `racer-${i}`));
    const outcomes = await Promise.all(
      dev.bots.map(async (botId) => {
        const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 100 } })).body;
        const [join, retire] = await Promise.all([
          h.call("POST", `/api/tables/${table.tableId}/join`, { token: dev.token, body: { botId } }),
          h.call("DELETE", `/api/bots/${botId}`, { token: dev.token }),
        ]);
        expect([join.status, retire.status].sort()).toEqual(join.status === 201 ? [201, 409] : [200, 409]);
        return join.status === 201 ? "seated" : "retired";
      }),
    );
    expect(outcomes).toHaveLength(8);
    await h.expectAuditClean();
  });

  test("retired through one process, joined through another that still remembers the bot: the buy-in statement refuses it", async () => {
    const other = createApp({ db: h.database.db, dbKind: h.database.kind, config: h.config, jwtSecret: "test-secret", clock: h.clock, log: () => {} });
    const otherCall = harnessFor(other, h.database, h.clock, h.config).call;
    try {
      const dev = await developerWithBots("remembered");
      const [botId] = dev.bots;
      const table = (await otherCall("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 300 } })).body;
      expect((await otherCall("GET", `/api/bots/${botId}`)).status).toBe(200); // now cached there
      expect((await h.call("DELETE", `/api/bots/${botId}`, { token: dev.token })).status).toBe(200);
      const join = await otherCall("POST", `/api/tables/${table.tableId}/join`, { token: dev.token, body: { botId } });
      expect(join.status).toBe(409);
      expect(join.body.error.code).toBe("BOT_RETIRED");
      expect((await otherCall("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000);
      expect((await otherCall("DELETE", `/api/bots/${botId}`, { token: dev.token })).status).toBe(200);
    } finally {
      await other.services.host.shutdown();
      await other.services.accounts.stopAll();
    }
  });

  test("retiring closes the bot's open socket (KEY_ROTATED, 4001) and its key no longer connects", async () => {
    const server = await startTestServer("lifecycle_ws");
    try {
      const dev = await registerWithCredits(server, "ghost");
      const bot = await createBot(server, dev.token, "ghost");
      const client = await new WsBot(server.url, bot.apiKey, undefined, "query").connect();
      expect((await server.api("DELETE", `/api/bots/${bot.botId}`, { token: dev.token })).status).toBe(200);
      expect((await client.next((m) => m.type === "error")).code).toBe("KEY_ROTATED");
      const refused = new WebSocket(`${server.url.replace("http", "ws")}/api/bots/connect?apiKey=${bot.apiKey}`);
      const outcome = await new Promise<string>((resolve) => {
        refused.onopen = () => resolve("open");
        refused.onerror = () => resolve("error");
        refused.onclose = () => resolve("closed");
      });
      expect(outcome).not.toBe("open");
    } finally {
      await server.close();
    }
  });
});
