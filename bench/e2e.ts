/**
 * End to end: 40 concurrent 6-max tables of built-in bots on Postgres, every hand history
 * written. Prints hands per second from the first join to the last match record (joins included).
 * Goal: ≥ 5,000 hands/s on the 2-core CI machine. Not a test: figures only.
 */
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db";
import { ensureJwtSecret } from "../src/db/settings";
import { auditLedger } from "../src/modules/credits/audit";
import { createTestDatabase } from "../tests/support/db";

const TABLES = Number(process.env.BENCH_TABLES ?? 40);
const SEATS = 6;
const MAX_HANDS = Number(process.env.BENCH_MAX_HANDS ?? 200);
const STRATEGIES = (process.env.BENCH_STRATEGIES ?? "random,caller,tight,raiser").split(",") as Array<"random" | "caller" | "tight" | "raiser">;

const testDb = await createTestDatabase("bench_e2e");
const config = loadConfig({ DATABASE_URL: testDb.url, FAUCET_AMOUNT: "100000000", PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1" });
// The pool a serving node opens (openDatabase's default), not a bigger one: on two cores, more connections only add contention.
const database = await openDatabase({ databaseUrl: testDb.url });
const app = createApp({ db: database.db, dbKind: database.kind, config, jwtSecret: await ensureJwtSecret(database.db, undefined), log: () => {} });
const { identity, accounts, bots, tables, host, matches, ratingsApplier } = app.services;

try {
  // As many developers as tables, each owning one bot at six different tables (as a real lobby
  // would be), so the benchmark does not queue every cashout on one developer's balance row.
  const developers = [];
  for (let d = 0; d < TABLES; d++) {
    const developer = await identity.register({ email: `bench${d}@example.com`, password: "bench-password" });
    await accounts.claimFaucet(developer.developerId);
    developers.push(developer.developerId);
  }
  const tableIds: string[] = [];
  const seatings: Array<{ tableId: string; botId: string; developerId: string }> = [];
  for (let t = 0; t < TABLES; t++) {
    const table = await tables.create(developers[t], { maxPlayers: SEATS, maxHands: MAX_HANDS, buyIn: 1000 });
    tableIds.push(table.tableId);
    for (let s = 0; s < SEATS; s++) {
      const developerId = developers[(t + s) % TABLES];
      const bot = await bots.create(developerId, { name: `t${t}s${s}`, strategy: STRATEGIES[(t + s) % STRATEGIES.length] });
      seatings.push({ tableId: table.tableId, botId: bot.botId, developerId });
    }
  }
  // Timed from the first join: all 240 bots ask for their seats at once, as a busy lobby would, and
  // each table starts as soon as its sixth seat is taken.
  const started = performance.now();
  await Promise.all(seatings.map((seating) => tables.join(seating.developerId, seating.tableId, seating.botId)));
  await host.settled();
  const seconds = (performance.now() - started) / 1000;
  // The ratings are applied off the hot path (docs/RATINGS.md): how long after the last match record they are all in.
  const recorded = performance.now();
  await ratingsApplier.settled();
  const ratingsLagSeconds = (performance.now() - recorded) / 1000;
  const played = (await matches.list({ limit: 200 })).items;
  const hands = played.reduce((sum, m) => sum + m.handsPlayed, 0);
  // Idle: one more six-max match alone, once play is over; how long after its record its rating is applied.
  const alone = await tables.create(developers[0], { maxPlayers: SEATS, maxHands: MAX_HANDS, buyIn: 1000 });
  for (let s = 0; s < SEATS; s++) {
    const developerId = developers[(s + 1) % TABLES];
    const bot = await bots.create(developerId, { name: `alone${s}`, strategy: STRATEGIES[s % STRATEGIES.length] });
    await tables.join(developerId, alone.tableId, bot.botId);
  }
  await host.settled();
  const aloneRecorded = performance.now();
  await ratingsApplier.settled();
  const idleLagSeconds = (performance.now() - aloneRecorded) / 1000;
  const audit = await auditLedger(database.db);
  console.log(`${played.length} matches, ${hands} hands (histories written) in ${seconds.toFixed(2)} s`);
  console.log(`audit: ${audit.ok ? "clean" : audit.problems.join("; ")}`);
  const worker = ratingsApplier.workerCost();
  const workerMsPerHand = worker.hands > 0 ? worker.ms / worker.hands : 0;
  console.log(`ratings: every rated match applied ${ratingsLagSeconds.toFixed(2)} s after the last match record (under load); one match alone afterwards ${idleLagSeconds.toFixed(2)} s (idle); the worker spent ${workerMsPerHand.toFixed(3)} ms per rated hand (${worker.hands} hands, off the event loop)`);
  console.log(JSON.stringify({ tables: TABLES, hands, seconds: Number(seconds.toFixed(3)), handsPerSec: Math.round(hands / seconds), ratingsLagSeconds: Number(ratingsLagSeconds.toFixed(3)), idleLagSeconds: Number(idleLagSeconds.toFixed(3)), workerMsPerHand: Number(workerMsPerHand.toFixed(3)) }));
} finally {
  await host.shutdown();
  await ratingsApplier.stop();
  await accounts.stopAll();
  await database.close();
  await testDb.drop();
}
