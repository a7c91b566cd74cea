import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { until } from "../support/nodes";
import { promtool } from "../support/promtool";
import { ALLOWED_LABELS, series, total } from "../support/scrape";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

// Ladder matches of a few hands, paired every 50 ms (as tests/ladder/ladder.test.ts).
setDefaultTimeout(90_000);

let server: TestServer;
const secrets: string[] = [];
let scrape = "";
const scrapeNow = async () => (await fetch(`${server.url}/metrics`)).text();

beforeAll(async () => {
  server = await startTestServer("ladder_metrics", { HOST_ID: "node_lm", LADDER_HANDS: "4", LADDER_PAIR_EVERY_MS: "50", LADDER_ACTION_TIMEOUT_MS: "500" });
  const dev = await registerWithCredits(server, "ladder-metrics");
  secrets.push(dev.token, dev.developerId);
  const playing = await createBot(server, dev.token, "plays", "caller");
  // A remote bot never connected: its entry pauses (BOT_OFFLINE).
  const offline = await createBot(server, dev.token, "offline");
  secrets.push(playing.botId, playing.apiKey, offline.botId, offline.apiKey);
  for (const botId of [playing.botId, offline.botId]) expect((await server.api("POST", "/api/ladder/entries", { token: dev.token, body: { botId } })).status).toBe(201);
  // Two ladder matches played to their end.
  await until(async () => ((await server.api("GET", "/api/me/ladder", { token: dev.token })).body as any[]).find((e) => e.botId === playing.botId)?.matchesPlayed >= 2, 30_000, "two ladder matches");
  scrape = await until(async () => {
    const text = await scrapeNow();
    return total(text, "poker_ladder_entries", { status: "paused", reason: "BOT_OFFLINE" }) > 0 ? text : null;
  }, 10_000, "a round that saw the paused entry");
});
afterAll(() => server.close());

describe("the ladder's metrics after ladder matches", () => {
  test("pairings counted by format, this node holds the matchmaker role, entries by status and reason, the queue", () => {
    expect(total(scrape, "poker_ladder_pairings_total", { format: "heads-up" })).toBeGreaterThanOrEqual(2);
    expect(series(scrape).some((s) => s.name === "poker_ladder_pairings_total" && s.labels.format === "six-max")).toBe(true);
    expect(total(scrape, "poker_ladder_matchmaker")).toBe(1);
    // The developer's built-in and the house's built-ins (both formats) are active; the unconnected bot is paused.
    expect(total(scrape, "poker_ladder_entries", { format: "heads-up", status: "active" })).toBeGreaterThanOrEqual(2);
    expect(total(scrape, "poker_ladder_entries", { format: "heads-up", status: "paused", reason: "BOT_OFFLINE" })).toBe(1);
    const queue = series(scrape).filter((s) => s.name === "poker_ladder_available");
    expect(queue.map((s) => s.labels.format).sort()).toEqual(["heads-up", "six-max"]);
    for (const s of queue) expect(s.value).toBeGreaterThanOrEqual(0);
  });

  test("bounded labels: known names, formats and reasons from their fixed sets, no id or key anywhere", () => {
    const ladderSeries = series(scrape).filter((s) => s.name.startsWith("poker_ladder_"));
    // Pairings, the role, entries and the queue (above): every one of them checked here.
    expect(ladderSeries.length).toBeGreaterThanOrEqual(6);
    for (const s of ladderSeries) {
      for (const name of Object.keys(s.labels)) expect(ALLOWED_LABELS.has(name) ? name : `${s.name}{${name}}`).toBe(name);
      if (s.labels.format) expect(["heads-up", "six-max"]).toContain(s.labels.format);
      if (s.labels.status) expect(["active", "paused"]).toContain(s.labels.status);
      if (s.labels.reason) expect(["INSUFFICIENT_BALANCE", "BOT_OFFLINE", "BOT_RETIRED", "HOSTED_SEAT_LIMIT"]).toContain(s.labels.reason);
    }
    for (const secret of secrets) expect(scrape.includes(secret) ? secret : "").toBe("");
  });

  test("promtool check metrics: no errors", async () => {
    const checked = await promtool(["check", "metrics"], scrape);
    expect(checked.output).toBe("");
    expect(checked.code).toBe(0);
  });

  test("a node that does not hold the role reports 0 and no entries", async () => {
    await server.app.services.matchmaker.stop();
    const text = await scrapeNow();
    expect(total(text, "poker_ladder_matchmaker")).toBe(0);
    expect(series(text).filter((s) => s.name === "poker_ladder_entries" || s.name === "poker_ladder_available")).toEqual([]);
  });
});
