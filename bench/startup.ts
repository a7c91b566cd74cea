/**
 * Start-to-healthy time of the real entry point (`bun src/main.ts`), on embedded PGlite
 * (a fresh directory, then a warm restart) and on Postgres (a fresh database, then a restart).
 * STARTUP_ROUNDS rounds (default 3), each on a new directory and database; prints each round, then
 * the medians, one line per case, and a JSON line of the medians last. Not a test: figures only.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotPath } from "../src/db/pglite-snapshot";
import { freshDatabase, spawnServer } from "./support";

async function startToHealthy(env: Record<string, string>): Promise<number> {
  const server = await spawnServer(env);
  await server.stop();
  return server.startToHealthyMs;
}

/** One round: a fresh PGlite directory started twice, then a fresh Postgres database started twice. */
async function measureRound() {
  const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
  const pgliteCold = await startToHealthy({ PGLITE_DIR: join(dir, "db"), DATABASE_URL: "" });
  const pgliteWarm = await startToHealthy({ PGLITE_DIR: join(dir, "db"), DATABASE_URL: "" });
  rmSync(dir, { recursive: true, force: true });
  const database = await freshDatabase(`bench_startup_${process.pid}`);
  const postgresCold = await startToHealthy({ DATABASE_URL: database.url });
  const postgresWarm = await startToHealthy({ DATABASE_URL: database.url });
  await database.drop();
  const ms = Math.round;
  return { pgliteColdMs: ms(pgliteCold), pgliteWarmMs: ms(pgliteWarm), postgresColdMs: ms(postgresCold), postgresWarmMs: ms(postgresWarm) };
}

type Figures = Awaited<ReturnType<typeof measureRound>>;

/** The median of STARTUP_ROUNDS rounds (default 3): one start is at the mercy of the machine's load. */
export async function measureStartup(rounds = Number(process.env.STARTUP_ROUNDS) || 3, onRound?: (figures: Figures) => void): Promise<Figures> {
  const all: Figures[] = [];
  for (let i = 0; i < rounds; i++) {
    all.push(await measureRound());
    onRound?.(all[i]);
  }
  const median = (key: keyof Figures) => all.map((f) => f[key]).sort((a, b) => a - b)[Math.floor((rounds - 1) / 2)];
  return { pgliteColdMs: median("pgliteColdMs"), pgliteWarmMs: median("pgliteWarmMs"), postgresColdMs: median("postgresColdMs"), postgresWarmMs: median("postgresWarmMs") };
}

if (import.meta.main) {
  // A first start copies the snapshot built at `bun install`; without it, it builds it first (once).
  console.log(`PGlite snapshot for the current migrations: ${existsSync(snapshotPath()) ? "present" : "absent (the first round builds it)"}`);
  const figures = await measureStartup(undefined, (round) => console.log(`round: ${JSON.stringify(round)}`));
  console.log(`median of the rounds:`);
  console.log(`PGlite   first start (creates the database): ${figures.pgliteColdMs} ms`);
  console.log(`PGlite   restart:                            ${figures.pgliteWarmMs} ms`);
  console.log(`Postgres first start (runs migrations):      ${figures.postgresColdMs} ms`);
  console.log(`Postgres restart:                            ${figures.postgresWarmMs} ms`);
  console.log(JSON.stringify(figures));
}
