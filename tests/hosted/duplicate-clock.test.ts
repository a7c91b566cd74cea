/**
 * Issue 32, item 2, on a real server: a hosted bot that spins the CPU in copy 1 in proportion to its
 * hole cards, and reads the clock in copy 2 (tests/hosted/fixtures/clock-reader.ts). Every hosted
 * context reads a match clock that moves a fixed step per message it receives (hosted/match-clock.ts),
 * so the times copy 2 sees (Date.now() in its hooks and decisions, the deadline of each request) are
 * the same whether copy 1 spun or not. Before, over 19 deal pairs the gap copy 2 measured tracked copy
 * 1's card with r = 0.80.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { fundedDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { botLines, endedPair, fixtureSource, uploadOverHttp } from "./duplicate-support";

setDefaultTimeout(180_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("duplicate_clock");
});
afterAll(() => server.close());

test("the times copy 2 reads are identical whether copy 1 spun in proportion to its cards or not", async () => {
  const { token } = await fundedDeveloper(server.api, { label: "clock" });
  const { botId: reader } = await createBot(server, token, "clock-reader");
  const { botId: station } = await createBot(server, token, "station");
  await uploadOverHttp(server.url, token, station, await fixtureSource("calling-station"));
  const runs: Array<{ spun: string[]; seen: string[] }> = [];
  // The same bot, the same seed (the same decks): only what copy 1 spends differs.
  for (const spin of ["0", "20000"]) {
    await uploadOverHttp(server.url, token, reader, await fixtureSource("clock-reader", { __SPIN__: spin }));
    const table = await server.api("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2, maxHands: 24, seed: "clock-seed" } });
    for (const botId of [reader, station]) expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId } })).status).toBe(201);
    const [one, two] = await until(() => endedPair(server.database.db, table.body.tableId), 150_000, "both copies");
    runs.push({ spun: await botLines(server.database.db, reader, one), seen: await botLines(server.database.db, reader, two) });
  }
  // Copy 1 really did spin in one run and not in the other, in proportion to its cards.
  const loops = runs.map((run) => Number(/^spun (\d+) /.exec(run.spun.at(-1)!)![1]));
  expect(loops[0]).toBe(0);
  expect(loops[1]).toBeGreaterThan(24 * 20_000);
  // Copy 2 read the clock at every hook and decision: the same times, line for line.
  expect(runs[0].seen.length).toBeGreaterThan(3 * 24);
  expect(runs[1].seen).toEqual(runs[0].seen);
  // Its clock moved (a step per message), and every deadline lies ahead by its budget.
  const times = runs[0].seen.map((line) => Number(/^t=(\d+) /.exec(line)![1]));
  for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
  const decided = runs[0].seen.filter((l) => l.includes("deadline in"));
  // A decision in each of the 24 hands at least.
  expect(decided.length).toBeGreaterThanOrEqual(24);
  for (const line of decided) expect(Number(/deadline in (\d+) ms, time bank (\d+)/.exec(line)![1])).toBeGreaterThanOrEqual(2_000);
});
