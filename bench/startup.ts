/**
 * Start-to-healthy time of the real entry point (`bun src/main.ts`), on embedded PGlite
 * (a fresh directory, then a warm restart) and on Postgres (a fresh database, then a restart).
 * Prints one line per case and a JSON line last. Not a test: figures only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabase, spawnServer } from "./support";

async function startToHealthy(env: Record<string, string>): Promise<number> {
  const server = await spawnServer(env);
  await server.stop();
  return server.startToHealthyMs;
}

export async function measureStartup() {
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

if (import.meta.main) {
  const figures = await measureStartup();
  console.log(`PGlite   first start (creates the database): ${figures.pgliteColdMs} ms`);
  console.log(`PGlite   restart:                            ${figures.pgliteWarmMs} ms`);
  console.log(`Postgres first start (runs migrations):      ${figures.postgresColdMs} ms`);
  console.log(`Postgres restart:                            ${figures.postgresWarmMs} ms`);
  console.log(JSON.stringify(figures));
}
