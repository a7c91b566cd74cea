/**
 * Part of `bun run bench:hosted`: hosted bots at real tables, end to end on Postgres (every hand
 * history written). Heads-up tables of the starter bot (hosted, in the app's own sandbox) against
 * a built-in:
 *   1. hands/s of HOSTED_TABLES (default 40) such tables over a HOSTED_WINDOW_S (default 20 s)
 *      window, once every match has started and played a while (workers started, contexts loaded);
 *   2. the same with one of them replaced by a table whose hosted bot loops forever: the hands/s
 *      of the other tables over the same window, against the clean runs before and after it
 *      (HOSTED_PAIRS looper runs, default 3, alternating with clean ones; the goal: within 10 %).
 * Each run is a fresh app (its own sandbox) on the same database; its matches are long enough to
 * outlast the window and are stopped at its end (resumable, as at a shutdown).
 * Figures only, not a test.
 */
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db";
import { ensureJwtSecret } from "../src/db/settings";
import { auditLedger } from "../src/modules/credits/audit";
import { bundleBot } from "../src/modules/hosted/sandbox/index.ts";
import { createTestDatabase } from "../tests/support/db";
import { storeVersion } from "../tests/hosted/play-support";

const TABLES = Number(process.env.HOSTED_TABLES ?? 40);
const WINDOW_S = Number(process.env.HOSTED_WINDOW_S ?? 20);
const WARM_UP_S = 3;

async function bundled(path: URL): Promise<string> {
  const built = await bundleBot(await Bun.file(path).text());
  if (!built.ok) throw new Error(JSON.stringify(built.errors));
  return built.code;
}

export async function benchHostedTables(): Promise<void> {
  const starter = await bundled(new URL("../examples/starter-bot.ts", import.meta.url));
  const looping = await bundled(new URL("../tests/hosted/fixtures/infinite-loop.ts", import.meta.url));
  const testDb = await createTestDatabase("bench_hosted");
  const config = loadConfig({ DATABASE_URL: testDb.url, FAUCET_AMOUNT: "100000000", PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1" });
  const database = await openDatabase({ databaseUrl: testDb.url });
  const jwtSecret = await ensureJwtSecret(database.db, undefined);
  let developerCount = 0;

  /**
   * `TABLES` heads-up tables, the first `loopers` with the looping bot; resolves with the hands/s of
   * the tables after the first `skipped` ones over the window. Both kinds of run pass the same
   * `skipped`, so the figures compare the same tables, next to a looping bot or to a normal one.
   */
  async function run(label: string, loopers: number, skipped: number): Promise<number> {
    const app = createApp({ db: database.db, dbKind: database.kind, config, jwtSecret, log: () => {} });
    const { identity, accounts, bots, tables, host, sandbox } = app.services;
    try {
      const seatings: Array<{ tableId: string; botId: string; developerId: string }> = [];
      const normal: string[] = [];
      const uncounted: string[] = [];
      for (let t = 0; t < TABLES; t++) {
        const developer = await identity.register({ email: `bench${developerCount++}@example.com`, password: "bench-password" });
        await accounts.claimFaucet(developer.developerId);
        // 50,000 big blinds deep: the matches outlast the window (a bust would end a table's dealing).
        const table = await tables.create(developer.developerId, { maxPlayers: 2, maxHands: 1_000_000, buyIn: 100_000, smallBlind: 1, bigBlind: 2 });
        const hosted = await bots.create(developer.developerId, { name: `${label}-h${t}` });
        await storeVersion(database.db, hosted.botId, 1, t < loopers ? looping : starter);
        const builtIn = await bots.create(developer.developerId, { name: `${label}-b${t}`, strategy: "caller" });
        for (const bot of [hosted, builtIn]) seatings.push({ tableId: table.tableId, botId: bot.botId, developerId: developer.developerId });
        (t >= skipped ? normal : uncounted).push(table.tableId);
      }
      await Promise.all(seatings.map((s) => tables.join(s.developerId, s.tableId, s.botId)));
      // Hands dealt so far at these tables (a match that ended — a bust — stays at its last number).
      const lastSeen = new Map<string, number>();
      const dealt = (ids: string[]) => ids.reduce((sum, id) => sum + lastSeen.set(id, host.runtime(id)?.handNumber ?? lastSeen.get(id) ?? 0).get(id)!, 0);
      await Bun.sleep(WARM_UP_S * 1000);
      const uncountedBefore = dealt(uncounted);
      const before = dealt(normal);
      const atStart = new Map(lastSeen);
      const started = performance.now();
      await Bun.sleep(WINDOW_S * 1000);
      const hands = dealt(normal) - before;
      const perTable = normal.map((id) => lastSeen.get(id)! - atStart.get(id)!).sort((a, b) => a - b);
      const seconds = (performance.now() - started) / 1000;
      const perSecond = hands / seconds;
      const busted = normal.filter((id) => host.runtime(id)?.status !== "running").length;
      console.log(
        `${label}: ${normal.length} hosted-vs-built-in tables, ${hands} hands in ${seconds.toFixed(1)} s: ${perSecond.toFixed(0)} hands/s` +
          `${loopers ? ` (next to ${loopers} table(s) of a bot that loops forever)` : ` (next to ${skipped} normal table(s) not counted)`}; ${busted} match(es) ended early (a bust)`,
      );
      console.log(`  hands per table in the window: slowest ${perTable[0]}, median ${perTable[perTable.length >> 1]}, fastest ${perTable[perTable.length - 1]}; the table(s) not counted: ${dealt(uncounted) - uncountedBefore}`);
      return perSecond;
    } finally {
      await host.shutdown();
      await sandbox.close();
      await accounts.stopAll();
    }
  }

  try {
    // Clean and looper runs alternate, each looper run compared with the mean of the clean runs
    // on either side of it: the database grows run by run and the machine's speed drifts, and a
    // single clean-then-looper pair folded both into the figure (a control pair of two clean runs
    // differed by 4 %, clean runs alone ranged 550–770 hands/s).
    const pairs = Number(process.env.HOSTED_PAIRS ?? 3);
    const loopers = Number(process.env.HOSTED_LOOPERS ?? 1);
    const clean = [await run("clean-1", 0, loopers)];
    const ratios: number[] = [];
    for (let i = 1; i <= pairs; i++) {
      const withLooper = await run(`looper-${i}`, loopers, loopers);
      clean.push(await run(`clean-${i + 1}`, 0, loopers));
      ratios.push(withLooper / ((clean[i - 1] + clean[i]) / 2));
      console.log(`  looper run ${i} / the mean of the clean runs around it: ${(ratios[i - 1] * 100).toFixed(1)} %`);
    }
    const median = [...ratios].sort((a, b) => a - b)[ratios.length >> 1];
    console.log(
      `hands/s with a looping bot next door / without: ${ratios.map((r) => `${(r * 100).toFixed(1)} %`).join(", ")}; median ${(median * 100).toFixed(1)} % (goal: ≥ 90 %); ` +
        `${ratios.filter((r) => r >= 0.9).length} of ${ratios.length} runs within 10 %`,
    );
    const audit = await auditLedger(database.db);
    console.log(`audit: ${audit.ok ? "clean" : audit.problems.join("; ")}`);
  } finally {
    await database.close();
    await testDb.drop();
  }
}
