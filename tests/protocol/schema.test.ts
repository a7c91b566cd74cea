/** docs/protocol.schema.json is current, and every message of a real match (bots both ways, a spectator, a reconnect, errors) conforms to it. */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { botMessages, protocolSchema, serverMessages } from "@poker-bots/protocol";
import { ROOT } from "../support/process";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { Spectator } from "../support/spectator";
import { WsBot, type Message } from "../support/ws-bot";

setDefaultTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("protocol_schema");
});
afterAll(() => server?.close());

function problemsOf(kind: "server" | "bot", message: Message): string[] {
  const schemas: Record<string, any> = kind === "server" ? serverMessages : botMessages;
  const schema = schemas[message.type];
  if (!schema) return [`${kind} message of unknown type ${JSON.stringify(message.type)}`];
  return [...Value.Errors(schema, message)].map((e) => `${kind} ${message.type}: ${e.path || "/"} ${e.message} (${JSON.stringify(e.value)?.slice(0, 80)})`);
}

test("the committed docs/protocol.schema.json is the one the code defines (bun run protocol:schema)", () => {
  const committed = JSON.parse(readFileSync(join(ROOT, "docs/protocol.schema.json"), "utf8"));
  expect(committed).toEqual(protocolSchema());
  expect(Object.keys(committed.$defs)).toEqual(expect.arrayContaining(["ServerMessage", "BotMessage", "server.action_request", "server.hand_ended", "bot.action"]));
});

test("the schema refuses what it should: an unknown field, a bad card, a missing matchId", () => {
  const action = { type: "action", tableId: "tbl_1", matchId: "m_1", handNumber: 1, seat: 0, botId: "bot_1", action: "call", amount: 10, allIn: false };
  expect(problemsOf("server", action as Message)).toEqual([]);
  expect(problemsOf("server", { ...action, extra: 1 } as Message)).not.toEqual([]);
  expect(problemsOf("server", { type: "street", tableId: "tbl_1", matchId: "m_1", handNumber: 1, street: "flop", cards: ["1x"], board: [] } as Message)).not.toEqual([]);
  const { matchId: _m, ...withoutMatch } = action;
  expect(problemsOf("server", withoutMatch as Message)).not.toEqual([]);
});

test("every message of a real match conforms: two remote bots, a built-in, a spectator, a reconnect, errors and pings", async () => {
  const { token } = await registerWithCredits(server, "schema");
  const [a, b] = [await createBot(server, token, "schema-a"), await createBot(server, token, "schema-b")];
  const house = await createBot(server, token, "schema-house", "tight");
  const sent: Message[] = [];
  const answer = (request: Message, reply: Record<string, unknown>) => {
    sent.push({ type: "action", requestId: request.requestId, ...reply } as Message);
    return reply;
  };
  let illegalSent = false;
  const raiser = new WsBot(server.url, a.apiKey, (request) =>
    answer(request, request.legalActions.includes("raise") && request.toCall === 0 ? { action: "raise", amount: request.minRaiseTo } : { action: request.legalActions.includes("check") ? "check" : "call" }),
  );
  const caller = new WsBot(server.url, b.apiKey, (request, bot) => {
    if (!illegalSent) {
      illegalSent = true;
      bot.send({ type: "action", requestId: request.requestId, action: "raise", amount: 1 }); // ILLEGAL_ACTION; the request stays open
    }
    return answer(request, { action: request.legalActions.includes("check") ? "check" : "call" });
  });
  await raiser.connect();
  await caller.connect();
  // Seeded (every bot here is this developer's): the same cards every run, so the match lasts past hand 2.
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 3, maxHands: 6, seed: "schema-traffic" } });
  const tableId = table.body.tableId;
  const watcher = await Spectator.watch(server.url, tableId);
  const watched = watcher.messages;
  for (const bot of [a, b, house]) expect((await server.api("POST", `/api/tables/${tableId}/join`, { token, body: { botId: bot.botId } })).status).toBe(201);

  await caller.next((m) => m.type === "hand_started" && m.handNumber === 2);
  caller.send({ type: "ping" });
  caller.send({ type: "no_such_type" });
  await caller.next((m) => m.type === "pong");
  await caller.next((m) => m.type === "error" && m.code === "UNKNOWN_TYPE");
  caller.disconnect();
  await caller.untilClosed();
  await caller.connect(); // welcome and snapshot again, mid-match
  await raiser.next((m) => m.type === "match_ended");
  await caller.next((m) => m.type === "match_ended");
  await watcher.next((m) => m.type === "match_ended");
  watcher.close();

  const problems = [
    ...[...raiser.messages, ...caller.messages, ...watched].flatMap((m) => problemsOf("server", m)),
    ...[...sent, { type: "ping" } as Message].flatMap((m) => problemsOf("bot", m)),
  ];
  expect(problems.slice(0, 20)).toEqual([]);
  const seen = new Set([...raiser.messages, ...caller.messages, ...watched].map((m) => m.type));
  for (const type of ["welcome", "snapshot", "match_started", "hand_started", "action", "street", "action_request", "hand_ended", "match_ended", "error", "pong", "watching"]) expect(seen).toContain(type);
  expect(caller.ofType("error").map((m) => m.code)).toEqual(expect.arrayContaining(["ILLEGAL_ACTION", "UNKNOWN_TYPE"]));
  // Every hand message names its match.
  const matchId = raiser.ofType("match_started")[0].matchId;
  const handMessages = [...raiser.messages, ...watched].filter((m) => ["action", "street", "hand_ended", "action_request", "hand_started"].includes(m.type));
  expect(handMessages.length).toBeGreaterThan(6 * 2);
  expect(handMessages.filter((m) => m.matchId !== matchId)).toEqual([]);
});
