import { describe, expect, test } from "bun:test";
import { useHarness } from "../support/app";

const h = useHarness("developer_caps", { MAX_BOTS_PER_DEVELOPER: "3", MAX_OPEN_TABLES_PER_DEVELOPER: "2" });

describe("what one developer may create is capped", () => {
  test("bots: the one past the cap is a 409 TOO_MANY_BOTS and is not created; another developer is not affected", async () => {
    const dev = await h.registerDeveloper();
    for (let i = 0; i < 3; i++) expect((await h.call("POST", "/api/bots", { token: dev.token, body: { name: `b${i}` } })).status).toBe(201);
    const refused = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "b3" } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "TOO_MANY_BOTS", details: { limit: 3 } });
    expect((await h.call("GET", "/api/me/bots", { token: dev.token })).body).toHaveLength(3);
    const other = await h.registerDeveloper();
    expect((await h.call("POST", "/api/bots", { token: other.token, body: { name: "b3" } })).status).toBe(201);
  });

  test("open tables: the one past the cap is a 409 TOO_MANY_OPEN_TABLES; a finished table frees its place", async () => {
    const dev = await h.fundedDeveloper();
    const first = await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 3 } });
    expect((await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } })).status).toBe(201);
    const refused = await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "TOO_MANY_OPEN_TABLES", details: { limit: 2 } });
    const lobby = (await h.call("GET", "/api/tables")).body.filter((t: any) => t.seats.length === 0 || t.tableId === first.body.tableId);
    expect(lobby.length).toBeGreaterThanOrEqual(2);
    // Play the first table out: its place is free again.
    for (const name of ["c1", "c2"]) {
      const bot = await h.call("POST", "/api/bots", { token: dev.token, body: { name, strategy: "caller" } });
      await h.call("POST", `/api/tables/${first.body.tableId}/join`, { token: dev.token, body: { botId: bot.body.botId } });
    }
    await h.app.services.host.settled();
    expect((await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } })).status).toBe(201);
    await h.expectAuditClean();
  });
});
