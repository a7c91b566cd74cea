import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { auditLedger } from "../../src/modules/credits/audit";
import { until } from "../support/nodes";
import { WsBot } from "../support/ws-bot";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { agentClient, callTool, playWholeMatch, type ToolAnswer } from "../support/mcp-agent";

setDefaultTimeout(90_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("mcp", { AGENT_PRESENCE_MS: "400", MCP_ALLOWED_ORIGINS: "https://agents.example" });
});
afterAll(() => server.close());

const TOOLS = ["get_balance", "claim_faucet", "list_my_bots", "create_bot", "create_table", "join_table", "leave_table", "ladder_enter", "ladder_leave", "challenge", "hand_history", "wait_for_turn", "act"];

async function rawPost(headers: Record<string, string>) {
  const response = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const errorCodeOf = (answer: ToolAnswer) => (JSON.parse((answer.content as { text: string }[])[0]!.text) as { error: { code: string } }).error.code;

describe("/mcp: the Model Context Protocol for agents", () => {
  test("initialize, the tools with their schemas, the resources", async () => {
    const dev = await registerWithCredits(server, "mcp-list");
    const client = await agentClient(server.url, dev.token);
    expect(client.getServerVersion()?.name).toBe("poker-bot-service");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description!.length).toBeGreaterThan(30);
    }
    const join = tools.find((tool) => tool.name === "join_table")!;
    expect(join.inputSchema.required).toEqual(["tableId", "botId"]);
    const history = tools.find((tool) => tool.name === "hand_history")!;
    expect(Object.keys(history.inputSchema.properties!).sort()).toEqual(["after", "limit", "matchId"]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(["poker://rules", "poker://protocol"]);
    const rules = await client.readResource({ uri: "poker://rules" });
    expect((rules.contents[0] as { text: string }).text).toContain("check, else");
    const protocol = await client.readResource({ uri: "poker://protocol" });
    expect((protocol.contents[0] as { text: string }).text).toContain("action_request");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["poker://bots/{botId}/matches"]);
    const bot = await createBot(server, dev.token, "resource-reader");
    const matches = await client.readResource({ uri: `poker://bots/${bot.botId}/matches` });
    expect(JSON.parse((matches.contents[0] as { text: string }).text)).toEqual([]);
    await expect(client.readResource({ uri: "poker://nothing" })).rejects.toThrow(/Resource not found/);
    const balance = await callTool(client, "get_balance", {});
    expect(balance.isError).toBeFalsy();
    expect(typeof (balance.structuredContent as { balance: number }).balance).toBe("number");
    await client.close();
  });

  test("no token: 401 with the API's error body; a foreign Origin: 403; a listed one and a loopback one pass", async () => {
    const dev = await registerWithCredits(server, "mcp-origin");
    const anonymous = await rawPost({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe("UNAUTHORIZED");
    const badToken = await rawPost({ authorization: "Bearer nope" });
    expect(badToken.status).toBe(401);
    const foreign = await rawPost({ authorization: `Bearer ${dev.token}`, origin: "http://evil.example.com" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("FORBIDDEN");
    for (const origin of ["https://agents.example", "http://localhost:6274", "http://127.0.0.1:3000"]) {
      const allowed = await rawPost({ authorization: `Bearer ${dev.token}`, origin });
      expect(allowed.status).toBe(200);
      expect(allowed.body.result.serverInfo.name).toBe("poker-bot-service");
    }
    const get = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${dev.token}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  test("the route tools answer what their routes answer", async () => {
    const dev = await registerWithCredits(server, "mcp-routes");
    const client = await agentClient(server.url, dev.token);
    const structured = async (name: string, args: Record<string, unknown>) => {
      const answer = await callTool(client, name, args);
      expect({ name, isError: answer.isError ?? false }).toEqual({ name, isError: false });
      return answer.structuredContent as any;
    };
    const faucet = await callTool(client, "claim_faucet", {});
    expect(faucet.isError ? errorCodeOf(faucet) : "claimed").toBe("FAUCET_COOLDOWN");
    const bot = await structured("create_bot", { name: "route-tools", description: "made by an agent" });
    const mine = await structured("list_my_bots", { limit: 10 });
    expect(mine.items.map((item: { botId: string; connection: string }) => [item.botId, item.connection])).toEqual([[bot.botId, "offline"]]);
    const table = await structured("create_table", { maxPlayers: 2 });
    const before = (await structured("get_balance", {})).balance;
    expect(await structured("join_table", { tableId: table.tableId, botId: bot.botId })).toMatchObject({ botId: bot.botId, warning: { code: "BOT_NOT_CONNECTED" } });
    expect((await structured("get_balance", {})).balance).toBe(before - table.config.buyIn);
    expect(await structured("leave_table", { tableId: table.tableId, botId: bot.botId })).toMatchObject({ status: "left", cashout: table.config.buyIn });
    expect(await structured("ladder_enter", { botId: bot.botId })).toMatchObject({ botId: bot.botId, format: "heads-up" });
    expect(await structured("ladder_leave", { botId: bot.botId, format: "heads-up" })).toMatchObject({ botId: bot.botId });
    expect((await server.api("GET", "/api/me/ladder", { token: dev.token })).body.filter((e: { status: string }) => e.status !== "left")).toEqual([]);
    // A challenge: refused while the other developer's bot is not open to them, played once it is (each owner pays).
    const rival = await registerWithCredits(server, "mcp-rival");
    const opponent = (await server.api("POST", "/api/bots", { token: rival.token, body: { name: "mcp-challenged", strategy: "caller" } })).body.botId as string;
    const refused = await callTool(client, "challenge", { botId: bot.botId, opponentBotId: opponent, hands: 5, buyIn: 500 });
    expect([refused.isError, errorCodeOf(refused)]).toEqual([true, "NOT_OPEN_TO_CHALLENGES"]);
    expect((await server.api("PUT", `/api/bots/${opponent}/challenges`, { token: rival.token, body: { openToChallenges: true, maxBuyIn: 500 } })).status).toBe(200);
    const beforeChallenge = (await structured("get_balance", {})).balance;
    expect(await structured("challenge", { botId: bot.botId, opponentBotId: opponent, hands: 5, buyIn: 500 })).toMatchObject({ botId: bot.botId, opponentBotId: opponent, hands: 5 });
    expect((await structured("get_balance", {})).balance).toBe(beforeChallenge - 500);
    await client.close();
  });

  test("failures are tool errors with the API's codes, not transport errors", async () => {
    const dev = await registerWithCredits(server, "mcp-errors");
    const other = await registerWithCredits(server, "mcp-errors-other");
    const theirs = await createBot(server, other.token, "not-mine");
    const builtIn = await createBot(server, dev.token, "built-in", "caller");
    const client = await agentClient(server.url, dev.token);
    const cases: [string, Record<string, unknown>, string][] = [
      ["join_table", { tableId: "tbl_missing", botId: theirs.botId }, "FORBIDDEN"],
      ["hand_history", { matchId: "m_missing" }, "NOT_FOUND"],
      ["create_table", { maxPlayers: 11 }, "VALIDATION_ERROR"],
      ["wait_for_turn", { botId: theirs.botId, timeoutMs: 10 }, "FORBIDDEN"],
      ["wait_for_turn", { botId: builtIn.botId, timeoutMs: 10 }, "BUILT_IN_BOT"],
      ["wait_for_turn", { botId: 42 }, "VALIDATION_ERROR"],
      ["act", { botId: theirs.botId, requestId: "req_x", action: "call" }, "FORBIDDEN"],
    ];
    for (const [name, args, code] of cases) {
      const answer = await callTool(client, name, args);
      expect({ name, isError: answer.isError, code: errorCodeOf(answer) }).toEqual({ name, isError: true, code });
    }
    expect(cases).toHaveLength(7);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  test("an agent plays a whole match through wait_for_turn/act (raises included); the history agrees; the ledger holds", async () => {
    const dev = await registerWithCredits(server, "mcp-match");
    const client = await agentClient(server.url, dev.token);
    const created = await callTool(client, "create_bot", { name: "agent-bot" });
    const agentBotId = (created.structuredContent as { botId: string }).botId;
    const house = await createBot(server, dev.token, "house-opponent", "random");
    const table = await callTool(client, "create_table", { maxPlayers: 2, maxHands: 12, actionTimeoutMs: 5000, seed: "mcp-whole-match" });
    const tableId = (table.structuredContent as { tableId: string }).tableId;
    expect((await callTool(client, "join_table", { tableId, botId: agentBotId })).isError).toBeFalsy();
    await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: house.botId } });
    const played = await playWholeMatch(client, agentBotId, { seed: 7 });
    expect(played.ended.handsPlayed).toBeGreaterThan(0);
    expect(played.ended.handsPlayed).toBeLessThanOrEqual(12);
    expect(played.acts).toBeGreaterThan(5);
    expect(played.raises).toBeGreaterThan(0);
    expect(played.rejected).toBe(0);
    const history = await callTool(client, "hand_history", { matchId: played.ended.matchId, limit: 100 });
    expect(history.isError).toBeFalsy();
    const hands = (history.structuredContent as { hands: { players: { seat: number; botId: string }[]; events: Record<string, unknown>[] }[] }).hands;
    expect(hands).toHaveLength(played.ended.handsPlayed);
    // Every answer the agent gave is in the history, in order, as it was sent.
    const recorded = hands.flatMap((hand) => {
      const seat = hand.players.find((player) => player.botId === agentBotId)!.seat;
      return hand.events.filter((event) => event.type === "action" && event.seat === seat && event.action !== "small_blind" && event.action !== "big_blind").map((event) => (event.action === "raise" ? `raise ${event.amount}` : String(event.action)));
    });
    expect(recorded).toEqual(played.sent);
    // A late answer to an old request is STALE_REQUEST.
    const stale = await callTool(client, "act", { botId: agentBotId, requestId: played.lastRequestId, action: "fold" });
    expect(errorCodeOf(stale)).toBe("STALE_REQUEST");
    expect((await auditLedger(server.database.db)).problems).toEqual([]);
    await client.close();
  });

  test("an illegal answer keeps the request open; the agent counts as connected while it polls, not after AGENT_PRESENCE_MS", async () => {
    const dev = await registerWithCredits(server, "mcp-presence");
    const client = await agentClient(server.url, dev.token);
    const agent = await createBot(server, dev.token, "present");
    const house = await createBot(server, dev.token, "present-house", "caller");
    const presence = async () => (await queryRows(server.database.db, sql`select host_id from bot_presence where bot_id = ${agent.botId}`)).length;
    const connection = async (botId: string) => (await server.api("GET", `/api/bots/${botId}`, { token: dev.token })).body.connection as string;
    expect(await connection(agent.botId)).toBe("offline");
    expect(await connection(house.botId)).toBe("built-in");
    const idle = await callTool(client, "wait_for_turn", { botId: agent.botId, timeoutMs: 50 });
    expect((idle.structuredContent as { status: string }).status).toBe("idle");
    await until(async () => (await presence()) === 1, 5_000, "the agent's bot recorded as connected");
    expect(await connection(agent.botId)).toBe("agent");
    await until(async () => (await presence()) === 0, 5_000, "the quiet agent's bot recorded as gone");
    expect(await connection(agent.botId)).toBe("offline");
    expect((await server.api("GET", `/api/bots/${agent.botId}`)).body.connection).toBeUndefined();
    const socketBot = await new WsBot(server.url, agent.apiKey).connect();
    await until(async () => (await connection(agent.botId)) === "socket", 5_000, "the WebSocket bot shown as such");
    socketBot.disconnect();
    await until(async () => (await presence()) === 0, 5_000, "the WebSocket bot gone");
    const tableId = (await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 1, actionTimeoutMs: 5000 } })).body.tableId;
    await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: agent.botId } });
    await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: house.botId } });
    const turn = await callTool(client, "wait_for_turn", { botId: agent.botId, timeoutMs: 20_000 });
    const request = (turn.structuredContent as { status: string; request: { requestId: string; legalActions: string[] } }).request;
    expect((turn.structuredContent as { status: string }).status).toBe("your_turn");
    const illegal = await callTool(client, "act", { botId: agent.botId, requestId: request.requestId, action: "raise", amount: 1 });
    expect(errorCodeOf(illegal)).toBe("ILLEGAL_ACTION");
    // Asked again, the same request is still the open one.
    const again = await callTool(client, "wait_for_turn", { botId: agent.botId, timeoutMs: 1_000 });
    expect((again.structuredContent as { request: { requestId: string } }).request.requestId).toBe(request.requestId);
    const legal = await callTool(client, "act", { botId: agent.botId, requestId: request.requestId, action: "fold" });
    expect(legal.structuredContent).toEqual({ accepted: true, requestId: request.requestId });
    const end = await callTool(client, "wait_for_turn", { botId: agent.botId, timeoutMs: 20_000 });
    expect((end.structuredContent as { status: string }).status).toBe("match_ended");
    await client.close();
  });
});
