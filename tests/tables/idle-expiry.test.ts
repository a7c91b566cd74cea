import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("idle_expiry", { WAITING_TABLE_TTL_MS: "400" });
});
afterAll(() => server.close());

describe("waiting tables nobody sits at expire", () => {
  test("an empty waiting table is aborted after WAITING_TABLE_TTL_MS and leaves the lobby; one with a seat stays", async () => {
    const { token } = await registerWithCredits(server, "idle");
    const empty = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const seated = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId;
    const bot = await createBot(server, token, "sitter", "caller");
    expect((await server.api("POST", `/api/tables/${seated}/join`, { token, body: { botId: bot.botId } })).status).toBe(201);
    const view = await until(async () => {
      const answer = (await server.api("GET", `/api/tables/${empty}`)).body;
      return answer.status !== "waiting" && answer;
    }, 20_000, "the empty table to expire");
    expect(view.status).toBe("aborted");
    const lobby = (await server.api("GET", "/api/tables")).body.map((t: any) => t.tableId);
    expect(lobby).not.toContain(empty);
    expect(lobby).toContain(seated);
    expect((await server.api("GET", `/api/tables/${seated}`)).body.status).toBe("waiting");
    // An expired table cannot be joined; nothing is charged.
    const late = await createBot(server, token, "late", "caller");
    const before = (await server.api("GET", "/api/me/balance", { token })).body.balance;
    const join = await server.api("POST", `/api/tables/${empty}/join`, { token, body: { botId: late.botId } });
    expect(join.status).toBe(409);
    expect(join.body.error.code).toBe("TABLE_NOT_JOINABLE");
    expect((await server.api("GET", "/api/me/balance", { token })).body.balance).toBe(before);
  });
});
