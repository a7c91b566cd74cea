import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { hostedLogs, matchPlayers, seats } from "../../src/db/schema";
import { useHarness } from "../support/app";
import { until } from "../support/nodes";
import { STARTER_BOT, storeVersion } from "./play-support";
import { bundleFile, bundleFixture } from "./support";

// Whole matches against a real Postgres, with bots in the sandbox's worker threads.
setDefaultTimeout(90_000);

// A short time bank, so a looping bot's failures cost ~0.1 s each (the first one spends the bank).
const h = useHarness("hosted_play", { TIME_BANK_MS: "100", TIME_BANK_CAP_MS: "100", TIME_BANK_REFILL_MS: "10", METRICS_TOKEN: "scrape" }, { beforeClose: (harness) => harness.app.services.sandbox.close() });

const db = () => h.database.db;

async function hostedBot(token: string, name: string): Promise<string> {
  const created = await h.call("POST", "/api/bots", { token, body: { name } });
  expect(created.status).toBe(201);
  return created.body.botId;
}

async function builtIn(token: string, name: string, strategy: string): Promise<string> {
  return (await h.call("POST", "/api/bots", { token, body: { name, strategy } })).body.botId;
}

async function tableWith(token: string, body: Record<string, unknown>, players: Array<{ token: string; botId: string }>): Promise<string> {
  const table = await h.call("POST", "/api/tables", { token, body: { maxPlayers: players.length, ...body } });
  expect(table.status).toBe(201);
  for (const p of players) expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
  return table.body.tableId;
}

const playerOf = async (matchId: string, botId: string) => (await db().select().from(matchPlayers).where(and(eq(matchPlayers.matchId, matchId), eq(matchPlayers.botId, botId))))[0];
const logsOf = (botId: string, matchId: string) => db().select().from(hostedLogs).where(and(eq(hostedLogs.botId, botId), eq(hostedLogs.matchId, matchId))).orderBy(asc(hostedLogs.id));

describe("a hosted bot plays without a socket wherever a built-in can", () => {
  test("the starter bot, hosted, plays a whole match against a built-in: hands recorded, its version pinned, contexts closed, the books balance", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const hosted = await hostedBot(alice.token, "starter-hosted");
    await storeVersion(db(), hosted, 1, await bundleFile(STARTER_BOT));
    const opponent = await builtIn(bob.token, "caller", "caller");
    const tableId = await tableWith(alice.token, { maxHands: 40 }, [{ token: alice.token, botId: hosted }, { token: bob.token, botId: opponent }]);
    await h.app.services.host.settled();

    const table = (await h.call("GET", `/api/tables/${tableId}`)).body;
    expect(table.status).toBe("finished");
    const match = (await h.call("GET", `/api/matches/${table.matchId}`)).body;
    expect(match.handsPlayed).toBeGreaterThan(0);
    const hands = (await h.call("GET", `/api/matches/${table.matchId}/hands`)).body.hands;
    expect(hands).toHaveLength(match.handsPlayed);
    // The hosted bot acted in the recorded hands (it is asked, not folded for).
    const acted = hands.filter((hand: any) => hand.events.some((e: any) => e.type === "action" && e.seat === 0 && e.action !== "fold")).length;
    expect(acted).toBeGreaterThan(0);
    expect((await playerOf(table.matchId, hosted)).codeVersion).toBe(1);
    expect((await playerOf(table.matchId, opponent)).codeVersion).toBeNull();
    const [seat] = await db().select().from(seats).where(and(eq(seats.tableId, tableId), eq(seats.botId, hosted)));
    expect(seat.codeVersion).toBe(1);
    // It never failed: no failure rows.
    expect((await logsOf(hosted, table.matchId)).filter((row) => row.kind === "failure")).toEqual([]);
    expect(h.app.services.hostedPlay.openContexts).toBe(0);
    await h.expectAuditClean();
  });

  test("an upload during a match applies from the next match; the bot's console lines are its logs, with hand numbers", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const hosted = await hostedBot(alice.token, "upgraded");
    await storeVersion(db(), hosted, 1, await bundleFixture("hook-counter"));
    const opponent = await builtIn(bob.token, "caller2", "caller");
    const players = [{ token: alice.token, botId: hosted }, { token: bob.token, botId: opponent }];
    const first = await tableWith(alice.token, { maxHands: 30 }, players);
    // Version 2 arrives once the match has pinned version 1.
    await until(async () => ((await db().select().from(seats).where(eq(seats.tableId, first)))[0]?.codeVersion ?? null) !== null || null, 20_000, "the version pinned");
    await storeVersion(db(), hosted, 2, await bundleFile(STARTER_BOT));
    await h.app.services.host.settled();
    const firstMatch = (await h.call("GET", `/api/tables/${first}`)).body.matchId;
    expect((await playerOf(firstMatch, hosted)).codeVersion).toBe(1);
    const logs = await logsOf(hosted, firstMatch);
    const counted = logs.filter((row) => row.kind === "log" && row.message.startsWith("hands="));
    expect(counted.length).toBeGreaterThan(0);
    for (const row of counted) {
      expect(row.version).toBe(1);
      expect(row.handNumber).not.toBeNull();
      // One context all match: the hook counted every hand up to this one.
      expect(row.message).toStartWith(`hands=${row.handNumber} `);
    }

    const second = await tableWith(alice.token, { maxHands: 10 }, players);
    await h.app.services.host.settled();
    const secondMatch = (await h.call("GET", `/api/tables/${second}`)).body.matchId;
    expect((await playerOf(secondMatch, hosted)).codeVersion).toBe(2);
    // Version 2 (the starter bot) logs nothing of the kind.
    expect((await logsOf(hosted, secondMatch)).filter((row) => row.message.startsWith("hands="))).toEqual([]);
    await h.expectAuditClean();
  });

  test("a bot that loops forever gets the fallback and a failure row per hand, is folded after 3, while a built-in table next to it keeps dealing", async () => {
    const alice = await h.fundedDeveloper();
    const bob = await h.fundedDeveloper();
    const carol = await h.fundedDeveloper();
    // The bystanders: callers with blinds of 1 play on until one of them leaves.
    const busy = await tableWith(carol.token, { maxHands: 100_000, smallBlind: 1, bigBlind: 1 }, [
      { token: carol.token, botId: await builtIn(carol.token, "c1", "caller") },
      { token: carol.token, botId: await builtIn(carol.token, "c2", "caller") },
    ]);
    const handsAtBusy = () => h.app.services.host.runtime(busy)?.handNumber ?? 0;
    const before = handsAtBusy();

    const looping = await hostedBot(alice.token, "looper");
    await storeVersion(db(), looping, 1, await bundleFixture("infinite-loop"));
    const opponent = await builtIn(bob.token, "caller3", "caller");
    const tableId = await tableWith(alice.token, { maxHands: 12, actionTimeoutMs: 100 }, [{ token: alice.token, botId: looping }, { token: bob.token, botId: opponent }]);
    const matchId = await until(async () => {
      const table = (await h.call("GET", `/api/tables/${tableId}`)).body;
      return table.status === "finished" ? table.matchId : null;
    }, 60_000, "the looping bot's match finished");
    const during = handsAtBusy() - before;
    const bystander = (await h.call("GET", `/api/tables/${busy}`)).body.seats[0].botId;
    expect((await h.call("POST", `/api/tables/${busy}/leave`, { token: carol.token, body: { botId: bystander } })).status).toBe(200);
    await h.app.services.host.settled();

    const logs = await logsOf(looping, matchId);
    const failures = logs.filter((row) => row.kind === "failure");
    expect(failures.map((row) => row.failure)).toEqual(["timeout", "timeout", "timeout"]);
    for (const row of failures) expect(row.handNumber).toBeGreaterThanOrEqual(1);
    expect(logs.filter((row) => row.kind === "host" && row.failure === "disabled")).toHaveLength(1);
    expect(logs.some((row) => row.kind === "log" && row.message === "looping forever")).toBe(true);
    // Folded for the rest of the match: every hand was played (12), its later decisions folds.
    const match = (await h.call("GET", `/api/matches/${matchId}`)).body;
    expect(match.handsPlayed).toBe(12);
    // The bystanders kept dealing the whole time (the loop ran in a worker thread, not on the event loop).
    expect(during).toBeGreaterThan(50);
    console.log(`[hosted-play] a built-in table dealt ${during} hands while the looping bot's match played`);

    // The metrics count hosted decisions by outcome, with no bot id in any series.
    const scraped = (await h.call("GET", "/metrics", { token: "scrape" })).body as string;
    const count = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(scraped.replace(/,?node="[^"]*"/g, "").replace(/\{\}/g, ""))?.[1] ?? NaN);
    expect(count('poker_hosted_decisions_total{outcome="timeout"}')).toBe(3);
    expect(count('poker_hosted_decisions_total{outcome="ok"}')).toBeGreaterThan(0);
    expect(count('poker_hosted_decisions_total{outcome="disabled"}')).toBeGreaterThan(0);
    expect(count("poker_hosted_decision_seconds_count")).toBeGreaterThan(3);
    expect(count("poker_hosted_contexts")).toBe(0);
    // Read from the sandbox's own totals (pool.test.ts shows a preemption counted).
    const { preemptions, workerReplacements } = h.app.services.sandbox.counts();
    expect(count("poker_hosted_preemptions_total")).toBe(preemptions);
    expect(count("poker_hosted_worker_replacements_total")).toBe(workerReplacements);
    expect(scraped).not.toContain(looping);
    await h.expectAuditClean();
  });
});
