/**
 * `bun run bench:audit`: `bun run audit` (the real CLI, a child process) on a generated ledger of
 * BENCH_AUDIT_TRANSACTIONS rows (default 1,000,000; about half as many seats), built in a fresh
 * Postgres database by set-based SQL (tests/support/ledger.ts). The audit is given
 * BENCH_AUDIT_DEADLINE_S (default 120) and killed past it; the bench then counts the killed client's
 * queries still running on Postgres a few seconds later (a killed client's queries are not ended
 * by Postgres on their own) and cancels them. Prints a line, then
 * {"transactions", "seats", "buildSeconds", "auditSeconds" (null: no answer by the deadline), "leftRunning"}.
 */
import postgres from "postgres";
import { openDatabase } from "../src/db";
import { generateLedger } from "../tests/support/ledger";
import { freshDatabase, ROOT } from "./support";

const TRANSACTIONS = Number(process.env.BENCH_AUDIT_TRANSACTIONS ?? 1_000_000);
const DEADLINE_S = Number(process.env.BENCH_AUDIT_DEADLINE_S ?? 120);

/** Queries of other sessions than ours on the bench's database (the audit's, once it is gone). */
const othersRunning = (sql: postgres.Sql) =>
  sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`;

const database = await freshDatabase(`bench_audit_${process.pid}`);
try {
  // The migrations (and so the indexes of this checkout) first.
  await (await openDatabase({ databaseUrl: database.url, maxConnections: 1 })).close();
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const buildStarted = performance.now();
    const ledger = await generateLedger(sql, TRANSACTIONS);
    const buildSeconds = (performance.now() - buildStarted) / 1000;

    const started = performance.now();
    const child = Bun.spawn(["bun", "run", "audit"], { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url }, stdout: "pipe", stderr: "pipe" });
    const finished = await Promise.race([child.exited.then(() => true), Bun.sleep(DEADLINE_S * 1000).then(() => false)]);
    const auditSeconds = finished ? (performance.now() - started) / 1000 : null;
    let leftRunning = 0;
    if (!finished) {
      child.kill("SIGKILL");
      await child.exited;
      await Bun.sleep(5_000);
      const running = await othersRunning(sql);
      leftRunning = running.length;
      for (const { pid } of running) await sql`select pg_cancel_backend(${pid})`;
    } else {
      const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
      if (child.exitCode !== 0 || !stdout.includes("audit OK")) throw new Error(`the audit did not pass on a consistent ledger (exit ${child.exitCode}): ${stdout}${stderr}`);
    }
    console.log(
      `audit of ${ledger.transactions.toLocaleString("en")} transactions, ${ledger.seats.toLocaleString("en")} seats, ${ledger.developers.toLocaleString("en")} developers (built in ${buildSeconds.toFixed(1)} s): ` +
        (auditSeconds === null ? `no answer in ${DEADLINE_S} s (killed; ${leftRunning} of its queries still running on Postgres 5 s later)` : `${auditSeconds.toFixed(2)} s`),
    );
    console.log(JSON.stringify({ transactions: ledger.transactions, seats: ledger.seats, buildSeconds: Number(buildSeconds.toFixed(1)), auditSeconds: auditSeconds && Number(auditSeconds.toFixed(2)), leftRunning }));
  } finally {
    await sql.end();
  }
} finally {
  await database.drop();
}
