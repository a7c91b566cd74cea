/**
 * docs/PROTOCOL.md's claims about connecting, checked against a real server: a bot that connects
 * after its match started gets `welcome`, then a `snapshot` with exactly the fields of the
 * documented example, then its open `action_request`, and never that match's `match_started`; the
 * documented `welcome` has the documented fields (its `hosted` only for a hosted bot).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join, resolve } from "node:path";
import { registerWithCredits, createBot, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";
import { until } from "../support/nodes";
import { Spectator } from "../support/spectator";

setDefaultTimeout(60_000);

const PROTOCOL = await Bun.file(join(resolve(import.meta.dir, "../.."), "docs/PROTOCOL.md")).text();

/** The JSON example under a message's heading in docs/PROTOCOL.md. */
function documented(type: string): Record<string, unknown> {
  const section = PROTOCOL.slice(PROTOCOL.indexOf(`### \`${type}\``));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)![1];
  // The examples elide ids and digests ("bot_01…", "(64 hex digits)") but are JSON otherwise.
  return JSON.parse(block);
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("late_connection");
});
afterAll(() => server.close());

test("a bot that connects after its match started: welcome, a snapshot with the documented fields, its open request; no match_started", async () => {
  const { token } = await registerWithCredits(server, "late");
  const late = await createBot(server, token, "late-comer");
  const partner = await createBot(server, token, "partner", "caller");
  const table = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 3, actionTimeoutMs: 20_000 } })).body.tableId;
  const joined = await server.api("POST", `/api/tables/${table}/join`, { token, body: { botId: late.botId } });
  expect(joined.body.warning.code).toBe("BOT_NOT_CONNECTED");
  // A spectator hears match_started after the seated bots were sent theirs: the late bot's went to no socket.
  const spectator = await Spectator.watch(server.url, table);
  expect((await server.api("POST", `/api/tables/${table}/join`, { token, body: { botId: partner.botId } })).status).toBe(201);
  await until(async () => spectator.messages.some((m) => m.type === "match_started"), 10_000, "the match to start");
  spectator.close();
  // The match runs: the late bot's first turn waits for it (its deadline is 20 s plus its time bank).
  const socket = await new WsBot(server.url, late.apiKey).connect();
  const snapshot = await socket.next((m) => m.type === "snapshot", 10_000);
  await socket.next((m) => m.type === "action_request", 20_000);
  const order = socket.messages.map((m) => m.type);
  expect(order.slice(0, 2)).toEqual(["welcome", "snapshot"]);
  expect(order).not.toContain("match_started");

  const example = documented("snapshot");
  expect(Object.keys(snapshot).sort()).toEqual(Object.keys(example).sort());
  expect(Object.keys(snapshot.hand ?? {}).sort()).toEqual(Object.keys(example.hand as object).sort());
  expect(snapshot).toMatchObject({ tableId: table, status: "running", seeded: false, matchId: expect.stringMatching(/^m_/) });
  // The match's commitment, which match_started would have carried, is on the table's record.
  expect((await server.api("GET", `/api/tables/${table}`)).body.deckCommitment).toMatch(/^[0-9a-f]{64}$/);

  const welcome = socket.messages[0];
  expect(Object.keys(welcome).sort()).toEqual(Object.keys(documented("welcome")).sort());
  expect(welcome.hosted).toBeUndefined();
  await socket.next((m) => m.type === "match_ended", 30_000);
  socket.disconnect();
});
