/** The bot runner's logs: readable lines on a terminal (waiting for a seat, seated, match over), JSON when piped, a hint when the server is down. */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import starterBot from "../../examples/starter-bot.ts";
import { connect, readableLogger, runBot } from "@poker-bots/sdk";
import { until as waitUntil } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer("sdk_runner_logs");
  ({ token } = await registerWithCredits(server, "runner"));
});
afterAll(() => server?.close());

/** The suite's bounded wait (support/nodes.ts), for a probe of this file's own state. */
const until = (probe: () => boolean | Promise<boolean>, what: string) => waitUntil(async () => probe(), 20_000, what);

test("on a terminal: readable lines, 'waiting for a seat' while idle, then seated, started and over; no JSON", async () => {
  const mine = await createBot(server, token, "runner-text");
  const house = await createBot(server, token, "runner-house", "caller");
  const lines: string[] = [];
  const running = runBot(starterBot, { argv: ["--key", mine.apiKey, "--server", server.url, "--once"], env: {}, isTTY: true, write: (l) => void lines.push(l) });
  await until(() => lines.some((l) => l.includes("waiting for a seat")), "the idle notice");
  expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d connected as runner-text \(bot_\w+\), protocol v1$/);
  expect(lines[1]).toContain("waiting for a seat: seat it with `bun run cli -- tables join <tableId> --bot runner-text`");
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 3 } });
  await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: mine.botId } });
  await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: house.botId } });
  const ended = await running;
  expect(ended?.handsPlayed).toBe(3);
  expect(lines.some((l) => /match m_\w+ started at table tbl_\w+: seat \d, 2 players/.test(l))).toBe(true);
  expect(lines.some((l) => /match m_\w+ over after 3 hands: \d+ chips \([+-]?\d+\)/.test(l))).toBe(true);
  expect(lines.filter((l) => l.includes("{"))).toEqual([]);
});

test("a bot seated at a waiting table hears 'seated', not 'resumed'; piped (no terminal) the logs are JSON lines", async () => {
  const mine = await createBot(server, token, "runner-json");
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 3, maxHands: 3 } });
  await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: mine.botId } });
  const text: string[] = [];
  const client = connect(starterBot, { apiKey: mine.apiKey, server: server.url, logger: readableLogger({ write: (l) => void text.push(l) }) });
  await until(() => text.some((l) => l.includes("seated at table")), "the seated line");
  expect(text.join("\n")).toContain(`seated at table ${table.body.tableId}: the match starts when all 3 seats are taken`);
  expect(text.join("\n")).not.toContain("back in match");
  client.close();
  // close() stops the client at once (its idle-notice timer cleared): no line can follow done.
  await client.done;
  expect(text.some((l) => l.includes("waiting for a seat"))).toBe(false);

  const json: string[] = [];
  const piped = runBot(starterBot, { argv: ["--key", mine.apiKey, "--server", server.url], env: {}, isTTY: false, write: (l) => void json.push(l) });
  await until(() => json.length >= 2, "two JSON lines");
  const events = json.map((l) => JSON.parse(l));
  expect(events.map((e) => e.event)).toEqual(["connected", "seated"]);
  expect(events[1]).toMatchObject({ level: "info", tableId: table.body.tableId });
  process.emit("SIGINT" as any);
  expect(await piped).toBeNull();
  // --json on a terminal is JSON too.
  const forced: string[] = [];
  const again = runBot(starterBot, { argv: ["--key", mine.apiKey, "--server", server.url, "--json"], env: {}, isTTY: true, write: (l) => void forced.push(l) });
  await until(() => forced.length >= 1, "a JSON line");
  expect(JSON.parse(forced[0]).event).toBe("connected");
  process.emit("SIGINT" as any);
  await again;
});

test("a first connection to a match already under way says it joined it, not that it is 'back'; a reconnect is 'back in match'", async () => {
  const mine = await createBot(server, token, "runner-late");
  const house = await createBot(server, token, "runner-late-house", "caller");
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 100_000, actionTimeoutMs: 50 } });
  for (const botId of [mine.botId, house.botId]) await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId } });
  // Connect only once a hand has been dealt: "running" with hand 0 is a match about to start,
  // which the SDK rightly reports as seated and started, not as joined under way.
  await until(async () => (await server.api("GET", `/api/tables/${table.body.tableId}`, { token })).body.handsPlayed >= 1, "the first hand dealt");
  const lines: string[] = [];
  // Thinks 20 ms a turn: the match is surely still on when it reconnects (at full speed it might be over).
  const slow = { ...starterBot, decide: async (state: Parameters<typeof starterBot.decide>[0]) => (await Bun.sleep(20), starterBot.decide(state)) };
  const client = connect(slow, { apiKey: mine.apiKey, server: server.url, logger: readableLogger({ write: (l) => void lines.push(l) }), reconnect: { initialDelayMs: 10 } });
  await until(() => lines.some((l) => l.includes("already under way")), "the joined line");
  expect(lines.find((l) => l.includes("already under way"))).toMatch(/joined match m_\w+ at table tbl_\w+, already under way \(hand \d+/);
  expect(lines.some((l) => l.includes("back in match"))).toBe(false);
  client.reconnectNow();
  await until(() => lines.some((l) => l.includes("back in match")), `the resumed line in ${lines.join(" / ")}`);
  expect(lines.filter((l) => l.includes("already under way"))).toHaveLength(1);
  client.close();
  await client.done;
  await server.api("POST", `/api/tables/${table.body.tableId}/leave`, { token, body: { botId: house.botId } });
});

test("the server cannot be reached: the line says where, asks whether it runs, and how to point elsewhere", async () => {
  const lines: string[] = [];
  const client = connect(starterBot, {
    apiKey: "pbk_whatever",
    server: "http://127.0.0.1:9",
    logger: readableLogger({ write: (l) => void lines.push(l) }),
    reconnect: { initialDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 },
  });
  await expect(client.done).rejects.toThrow(/could not connect to http:\/\/127.0.0.1:9 after 2 attempts/);
  expect(lines.length).toBe(2);
  expect(lines[0]).toMatch(/cannot reach the service at http:\/\/127\.0\.0\.1:9.*is it running \(`bun run start`\)\? Another address: --server or POKER_SERVER\. Retrying in \d\.\d s \(attempt 1\)/);
});
