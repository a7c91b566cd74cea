/**
 * Issue 32, "one tenant cannot hurt another", in whole matches: one developer's bots each keep a
 * 56 MiB array, at 12 tables, each facing another developer's starter bot (so the two share the
 * match's worker). The innocent bots make every decision they are asked, none fails and none is
 * folded; the sandbox's memory stays within SANDBOX_MEMORY_MIB (the process's RSS with it); when
 * the matches are over, the grown workers are recycled and the memory comes back.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { useHarness } from "../support/app";
import { until } from "../support/nodes";
import { STARTER_BOT, storeVersion } from "./play-support";
import { bundleFile, bundleFixture } from "./support";

setDefaultTimeout(180_000);

const MIB = 1024 * 1024;
const SANDBOX_MEMORY_MIB = 512;
const TABLES = 12;
const HANDS = 30;
const h = useHarness("hosted_tenants", { SANDBOX_MEMORY_MIB: String(SANDBOX_MEMORY_MIB) });

async function botsOf(token: string, prefix: string, code: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < TABLES; i++) {
    const created = await h.call("POST", "/api/bots", { token, body: { name: `${prefix}-${i}` } });
    expect(created.status).toBe(201);
    await storeVersion(h.database.db, created.body.botId, 1, code);
    ids.push(created.body.botId);
  }
  return ids;
}

describe("bots holding 56 MiB at 12 tables, each facing another developer's bot", () => {
  test("the other developer's bots decide every time, without a failure or a fold; memory stays within its bound and comes back after", async () => {
    const mallory = await h.fundedDeveloper();
    const alice = await h.fundedDeveloper();
    const hogs = await botsOf(mallory.token, "hog", await bundleFixture("memory-hog"));
    const innocents = await botsOf(alice.token, "innocent", await bundleFile(STARTER_BOT));
    const sandbox = h.app.services.sandbox;

    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    let peakSandbox = 0;
    let samples = 0;
    // The highest readings while the matches play (a reading missed can only lower the peaks the bounds are checked on).
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      peakSandbox = Math.max(peakSandbox, sandbox.memoryInUse().totalBytes);
      samples++;
    }, 50);

    const tableIds: string[] = [];
    try {
      for (let i = 0; i < TABLES; i++) {
        const table = await h.call("POST", "/api/tables", { token: mallory.token, body: { maxPlayers: 2, maxHands: HANDS, buyIn: 200, smallBlind: 1, bigBlind: 2 } });
        expect(table.status).toBe(201);
        tableIds.push(table.body.tableId);
        expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: mallory.token, body: { botId: hogs[i] } })).status).toBe(201);
        expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: alice.token, body: { botId: innocents[i] } })).status).toBe(201);
      }
      await h.app.services.host.settled();
    } finally {
      clearInterval(sampler);
    }
    expect(samples).toBeGreaterThan(0);

    // Every table finished its match; the innocent bots' decisions are their actions in the hands.
    const innocentSet = new Set(innocents);
    let decisions = 0;
    const decided = new Set<string>();
    for (const tableId of tableIds) {
      const table = (await h.call("GET", `/api/tables/${tableId}`)).body;
      expect(table.status).toBe("finished");
      const hands = (await h.call("GET", `/api/matches/${table.matchId}/hands`)).body.hands as Array<{ players: Array<{ seat: number; botId: string }>; events: Array<{ type: string; seat?: number }> }>;
      expect(hands.length).toBeGreaterThan(0);
      for (const hand of hands) {
        const innocent = hand.players.find((p) => innocentSet.has(p.botId))!;
        const acted = hand.events.filter((e) => e.type === "action" && e.seat === innocent.seat).length;
        decisions += acted;
        if (acted > 0) decided.add(innocent.botId);
      }
    }
    const rows = await queryRows<{ bot_id: string; kind: string; failure: string | null; message: string }>(
      h.database.db,
      sql`select bot_id, kind, failure, message from hosted_logs where bot_id = any(${sql.param([...innocents, ...hogs])}::text[])`,
    );
    const innocentTrouble = rows.filter((r) => innocentSet.has(r.bot_id) && (r.kind !== "log" || r.failure !== null));
    expect(innocentTrouble).toEqual([]);
    expect(decided.size).toBe(TABLES);
    expect(decisions).toBeGreaterThan(TABLES * 5);

    // Mallory's bots: those the heavy share held kept their 56 MiB; the others' allocations were refused (memory).
    const holding = new Set(rows.filter((r) => r.kind === "log" && r.message === "holding 56 MiB").map((r) => r.bot_id));
    const refused = rows.filter((r) => r.kind === "failure" && r.failure === "memory");
    expect(holding.size).toBeGreaterThan(0);
    expect(holding.size).toBeLessThan(TABLES);
    expect(refused.length).toBeGreaterThan(0);

    // The bound: the sandbox's memory (exact, its ledger) and the process's RSS with it.
    expect(peakSandbox).toBeLessThanOrEqual(SANDBOX_MEMORY_MIB * MIB);
    expect(peakRss - rssBefore).toBeLessThan((SANDBOX_MEMORY_MIB + 256) * MIB);

    // Memory given back: every match over, the grown workers were recycled.
    const after = await until(async () => {
      const stats = await sandbox.stats();
      return stats.contexts === 0 && stats.memoryBytes <= 64 * MIB ? stats : null;
    }, 60_000, "the grown workers recycled");
    const rssAfter = await until(async () => {
      Bun.gc(true);
      const rss = process.memoryUsage().rss;
      return rss - rssBefore < 150 * MIB ? rss : null;
    }, 60_000, "the process's memory given back");
    expect(sandbox.counts().workerRecycles).toBeGreaterThan(0);
    console.log(
      `[tenants-play] ${TABLES} tables: innocent bots made ${decisions} decisions, 0 failed, 0 folded; ${holding.size} hogs held 56 MiB, ${refused.length} hog decisions refused memory; ` +
        `sandbox memory peak ${peakSandbox >> 20} MiB (bound ${SANDBOX_MEMORY_MIB}), RSS ${rssBefore >> 20} → peak ${peakRss >> 20} MiB → ${rssAfter >> 20} MiB after (sandbox ${after.memoryBytes >> 20} MiB, ${sandbox.counts().workerRecycles} workers recycled)`,
    );
    await h.expectAuditClean();
  });
});
