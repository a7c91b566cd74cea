/**
 * Start-to-healthy time of the real entry point (`bun src/main.ts`), on embedded PGlite
 * (a fresh directory, then a warm restart) and on Postgres (a fresh database).
 * Prints one line per case and a JSON line last. Not a test: figures only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const ROOT = join(import.meta.dir, "..");
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function startToHealthy(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(["bun", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let output = "";
  while (!/listening on (\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  const url = /listening on (\S+)/.exec(output)![1];
  for (;;) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    await Bun.sleep(5);
  }
  const elapsed = performance.now() - started;
  child.kill("SIGTERM");
  await child.exited;
  return elapsed;
}

const dir = mkdtempSync(join(tmpdir(), "startup-bench-"));
const pgliteCold = await startToHealthy({ PGLITE_DIR: join(dir, "db"), DATABASE_URL: "" });
const pgliteWarm = await startToHealthy({ PGLITE_DIR: join(dir, "db"), DATABASE_URL: "" });
rmSync(dir, { recursive: true, force: true });

const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
const name = `bench_startup_${process.pid}`;
await admin.unsafe(`drop database if exists ${name}`);
await admin.unsafe(`create database ${name}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;
const postgresCold = await startToHealthy({ DATABASE_URL: url.toString() });
const postgresWarm = await startToHealthy({ DATABASE_URL: url.toString() });
await admin.unsafe(`drop database if exists ${name} with (force)`);
await admin.end();

const ms = (n: number) => Math.round(n);
console.log(`PGlite   first start (creates the database): ${ms(pgliteCold)} ms`);
console.log(`PGlite   restart:                            ${ms(pgliteWarm)} ms`);
console.log(`Postgres first start (runs migrations):      ${ms(postgresCold)} ms`);
console.log(`Postgres restart:                            ${ms(postgresWarm)} ms`);
console.log(
  JSON.stringify({ pgliteColdMs: ms(pgliteCold), pgliteWarmMs: ms(pgliteWarm), postgresColdMs: ms(postgresCold), postgresWarmMs: ms(postgresWarm) }),
);
