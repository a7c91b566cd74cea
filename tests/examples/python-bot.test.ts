/** examples/python/starter_bot.py (Debian's python3-websockets) plays a whole match against a real server. */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { until } from "../support/nodes";
import { ROOT } from "../support/process";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

/** The first Python that has `websockets` (Debian's /usr/bin/python3 with python3-websockets; .ci/run installs it). */
function python(): string {
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    const probe = Bun.spawnSync([candidate, "-c", "import websockets"], { stdout: "ignore", stderr: "ignore" });
    if (probe.exitCode === 0) return candidate;
  }
  throw new Error("no python3 with the websockets package: apt-get install -y python3-websockets");
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("python_bot");
});
afterAll(() => server?.close());

const BOT = join(ROOT, "examples/python/starter_bot.py");

/** The child's exit code, or -1 (and the child killed) if it has not exited within `ms`. */
async function exitWithin(child: ReturnType<typeof Bun.spawn>, ms: number): Promise<number> {
  const code = await Promise.race([child.exited, Bun.sleep(ms).then(() => -1)]);
  if (code === -1) child.kill();
  return code;
}

test("the Python starter connects, waits for a seat, plays every hand of a match and exits with --once; the ledger agrees", async () => {
  const { token } = await registerWithCredits(server, "python");
  const mine = await createBot(server, token, "py-starter");
  const house = await createBot(server, token, "py-house", "caller");
  const child = Bun.spawn([python(), BOT, "--key", mine.apiKey, "--server", server.url, "--once"], { stdout: "pipe", stderr: "pipe" });
  let log = "";
  const decoder = new TextDecoder();
  const stderr = (async () => {
    for await (const chunk of child.stderr as ReadableStream<Uint8Array>) log += decoder.decode(chunk, { stream: true });
  })();
  // Seated once it is connected and waiting: its first request is then its own to answer in time.
  await until(async () => log.includes("connected as py-starter"), 20_000, "the bot's connection line");
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 20 } });
  for (const botId of [mine.botId, house.botId]) expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId } })).status).toBe(201);
  const code = await exitWithin(child, 45_000);
  await stderr;
  expect(code).toBe(0);
  expect(log).toContain("connected as py-starter");
  expect(log).toMatch(/match_started: table tbl_\w+, match m_\w+/);
  expect(log).toMatch(/match over after \d+ hands/);
  expect(log).not.toContain("server says");

  const match = (await server.api("GET", `/api/matches?botId=${mine.botId}`)).body[0];
  expect(match.players.reduce((sum: number, p: { finalChips: number }) => sum + p.finalChips, 0)).toBe(2000);
  // It answered for itself: a bot that timed out would have only checked and folded, never raised or called.
  const hands = (await server.api("GET", `/api/matches/${match.matchId}/hands`, { token })).body.hands;
  const seat = hands[0].players.find((p: { botId: string }) => p.botId === mine.botId).seat;
  const acted = hands.flatMap((h: { events: Array<{ type: string; seat: number; action: string }> }) => h.events).filter((e: { type: string; seat: number }) => e.type === "action" && e.seat === seat);
  expect(acted.some((e: { action: string }) => e.action === "call" || e.action === "raise")).toBe(true);
});

test("a wrong key: a clear message and exit code 1", async () => {
  const child = Bun.spawn([python(), BOT, "--key", "pbk_wrong", "--server", server.url], { stdout: "pipe", stderr: "pipe" });
  const code = await exitWithin(child, 20_000);
  expect(code).toBe(1);
  expect(await new Response(child.stderr).text()).toContain(`cannot connect to ${server.url}`);
});
