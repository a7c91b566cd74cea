import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { runBot } from "@poker-bots/sdk";
import { loadPlayers, playLocalMatch } from "../../src/cli/local-match";
import { until } from "../support/nodes";
import { ROOT } from "../support/process";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { allPages } from "../support/http";

// Each match has late answers (600 ms against a 300 ms clock).
setDefaultTimeout(60_000);

const SEED = "action-clock-parity";
const HANDS = 4;
const TIMEOUT_MS = 300;

let server: TestServer;
beforeAll(async () => {
  // No time bank on the server either: a late answer is late, as `cli play --timeout` means.
  server = await startTestServer("action_clock", { TIME_BANK_MS: "0", TIME_BANK_CAP_MS: "0", TIME_BANK_REFILL_MS: "0" });
});
afterAll(() => server.close());

/** What each seat did, hand by hand, blinds included: "seat:action amount". */
function actionsOf(histories: Array<{ events: Array<{ type: string; seat?: number; action?: string; amount?: number }> }>): string[][] {
  return histories.map((hand) => hand.events.filter((e) => e.type === "action").map((e) => `${e.seat}:${e.action} ${e.amount}`));
}

describe("one action clock: cli play and the server apply the same rules", () => {
  test("a bot file that answers illegally, then late, then correctly: the same action sequence on a seeded deal locally and on the server", async () => {
    const players = await loadPlayers(["./tests/cli/fixtures/clock-bot.ts", "caller"], ROOT);
    const local = await playLocalMatch(players, { seed: SEED, hands: HANDS, timeoutMs: TIMEOUT_MS, buyIn: 1_000, smallBlind: 5, bigBlind: 10 });
    expect(local.histories?.length).toBe(HANDS);
    expect(local.players[0].timeouts).toBeGreaterThan(0);

    // The same file against the server: a seeded table, the bot seated first (seat 0), a caller second.
    const dev = await registerWithCredits(server, "clock");
    const clockBot = await createBot(server, dev.token, "clock");
    const caller = await createBot(server, dev.token, "caller", "caller");
    const table = await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: HANDS, actionTimeoutMs: TIMEOUT_MS, seed: SEED } });
    const fresh = (await import(`${join(ROOT, "tests/cli/fixtures/clock-bot.ts")}?server`)).default;
    const logged: Array<{ event: string }> = [];
    const running = runBot(fresh, { argv: ["--key", clockBot.apiKey, "--server", server.url, "--once"], env: {}, isTTY: false, write: (line) => void logged.push(JSON.parse(line)) });
    // Seated once connected: a request that opened before it was there would run its clock without it.
    await until(async () => logged.some((entry) => entry.event === "connected"), 20_000, "the bot's connection");
    for (const botId of [clockBot.botId, caller.botId]) expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId } })).status).toBe(201);
    const ended = await running;
    expect(ended?.handsPlayed).toBe(HANDS);
    const matchId = ended!.matchId;
    const remote = await allPages(server.url, `/api/matches/${matchId}/hands`, "hands", { token: dev.token });
    expect(remote.length).toBe(HANDS);

    // Same deal, same decisions: the seats' actions agree hand by hand.
    const localActions = actionsOf(local.histories!);
    expect(localActions.flat().length).toBeGreaterThan(4 * HANDS);
    expect(actionsOf(remote)).toEqual(localActions);
  });
});

