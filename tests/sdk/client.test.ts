/** The SDK against a real server: a whole match, resume after a dropped connection, refused and replaced keys. */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import starterBot from "../../examples/starter-bot.ts";
import equityBot from "../../examples/equity-bot.ts";
import { connect, defineBot, memoryLogger, type BotClient, type DecisionState } from "@poker-bots/sdk";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

// Real servers, real processes and whole matches: more than Bun's 5 s default.
setDefaultTimeout(60_000);

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer("sdk_client");
  ({ token } = await registerWithCredits(server, "sdk"));
});
afterAll(() => server?.close());

/** Resolves once the client's log says it connected (`count` times). */
const connected = (log: ReturnType<typeof memoryLogger>, count = 1) =>
  until(async () => log.entries.filter((e) => e.event === "connected").length >= count, 20_000, "the client's connection");

async function tableWith(botIds: string[], maxHands: number) {
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: botIds.length, maxHands } });
  for (const botId of botIds) {
    const joined = await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId } });
    expect(joined.status).toBe(201);
  }
  return table.body.tableId as string;
}

test("the starter and equity bots play whole matches through connect(); once: done resolves with match_ended", async () => {
  for (const [name, bot] of [["starter", starterBot], ["equity", equityBot]] as const) {
    const mine = await createBot(server, token, `sdk-${name}`);
    const house = await createBot(server, token, `house-${name}`, "tight");
    const log = memoryLogger();
    const client = connect(bot, { apiKey: mine.apiKey, server: server.url, once: true, logger: log });
    // Seated once connected: it hears match_started itself (a late socket would join it under way).
    await connected(log);
    await tableWith([mine.botId, house.botId], 10);
    const ended = await client.done;
    expect(ended!.handsPlayed).toBeGreaterThan(0);
    const me = ended!.players.find((p) => p.botId === mine.botId)!;
    const stats = await server.api("GET", `/api/stats/${mine.botId}`);
    expect(stats.body.matchesPlayed).toBe(1);
    expect(stats.body.netChips).toBe(me.profit);
    // Structured logs: every entry has level and event; the lifecycle is there, with the botId.
    expect(log.entries.every((e) => typeof e.level === "string" && typeof e.event === "string")).toBe(true);
    expect(log.entries.filter((e) => e.level !== "debug").map((e) => e.event)).toEqual(expect.arrayContaining(["connected", "match_started", "match_ended"]));
    expect(log.entries.find((e) => e.event === "match_ended")).toMatchObject({ botId: mine.botId, profit: me.profit });
    expect(log.entries.filter((e) => e.event === "illegal_action")).toEqual([]);
    expect(client.connected).toBe(false);
  }
});

test("a dropped connection: the client reconnects, resumes from the snapshot and keeps playing", async () => {
  const mine = await createBot(server, token, "sdk-resume");
  const house = await createBot(server, token, "house-resume", "caller");
  const decisions: Array<{ hand: number; afterDrop: boolean }> = [];
  let dropped = false;
  let client!: BotClient;
  const bot = defineBot({
    decide: (state: DecisionState) => {
      decisions.push({ hand: state.handNumber, afterDrop: dropped });
      return state.legal.has("check") ? { action: "check" } : { action: "call" };
    },
    onHandStarted(message) {
      // Drop the socket as hand 2 starts: the bot's turn comes while it is away (or just back).
      if (message.handNumber === 2 && !dropped) {
        dropped = true;
        client.reconnectNow();
      }
    },
  });
  const log = memoryLogger();
  client = connect(bot, { apiKey: mine.apiKey, server: server.url, once: true, logger: log, reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });
  await connected(log);
  await tableWith([mine.botId, house.botId], 6);
  const ended = await client.done;
  expect(ended!.handsPlayed).toBe(6);
  const events = log.entries.map((e) => e.event);
  expect(events.filter((e) => e === "connected")).toHaveLength(2);
  expect(events).toContain("reconnecting");
  const resumed = log.entries.find((e) => e.event === "resumed")!;
  expect(resumed).toMatchObject({ botId: mine.botId, status: "running" });
  expect(resumed.handNumber).toBeGreaterThanOrEqual(2);
  // The bot kept playing after the drop: it decided in later hands (calling-station play never folds).
  expect(decisions.some((d) => d.afterDrop && d.hand >= 2)).toBe(true);
  expect(decisions.some((d) => d.hand === 6)).toBe(true);
});

test("an unknown api key is fatal (no endless retry); a second connection replaces the first", async () => {
  const refused = connect(starterBot, { apiKey: "pbk_not_a_key", server: server.url, logger: memoryLogger() });
  await expect(refused.done).rejects.toThrow(/api key/);

  const mine = await createBot(server, token, "sdk-replaced");
  const log = memoryLogger();
  const first = connect(starterBot, { apiKey: mine.apiKey, server: server.url, logger: log });
  await connected(log);
  const second = connect(starterBot, { apiKey: mine.apiKey, server: server.url, logger: memoryLogger() });
  await expect(first.done).rejects.toThrow(/REPLACED/);
  second.close();
  expect(await second.done).toBeNull();
});
