import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { AUDIT_TIMEOUT_MS, AuditIncomplete, auditLedger } from "./modules/credits/audit";

/**
 * `bun run audit [--timeout-ms N]`: exit 0 when the ledger invariants hold, 1 with a report when
 * they do not, 2 when the audit did not run or did not finish (database unreachable, the time
 * budget spent: `--timeout-ms`, else AUDIT_TIMEOUT_MS, default 120000), 130/143 when interrupted
 * (SIGINT/SIGTERM): its query is cancelled on Postgres before it exits, and one whose client was
 * killed outright is ended by Postgres within a second (client_connection_check_interval).
 */
function timeoutFrom(args: string[], env: Record<string, string | undefined>): number {
  const flag = args.findIndex((arg) => arg === "--timeout-ms" || arg.startsWith("--timeout-ms="));
  const raw = flag < 0 ? env.AUDIT_TIMEOUT_MS : args[flag].includes("=") ? args[flag].split("=")[1] : args[flag + 1];
  if (raw === undefined || raw === "") return AUDIT_TIMEOUT_MS;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`audit did not run: --timeout-ms / AUDIT_TIMEOUT_MS must be a positive integer (milliseconds), got "${raw}"`);
    process.exit(2);
  }
  return value;
}

const timeoutMs = timeoutFrom(process.argv.slice(2), process.env);
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 }).catch((error: Error) => {
  console.error(`audit did not run: ${error.message}`);
  process.exit(2);
});
const interrupted = new AbortController();
const EXIT_ON = { SIGINT: 130, SIGTERM: 143 } as const;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    // PGlite runs inside this process: ending the process ends its query. A second signal does not wait either.
    if (database.kind === "pglite" || interrupted.signal.aborted) process.exit(EXIT_ON[signal]);
    process.exitCode = EXIT_ON[signal];
    interrupted.abort();
  });
}
try {
  const report = await auditLedger(database.db, { timeoutMs, signal: interrupted.signal });
  const summary = `${report.developers} developers, ${report.transactions} transactions; balances ${report.totalBalances} + open seats ${report.openSeatChips} vs faucet grants ${report.faucetGrants}`;
  if (report.ok) {
    console.log(`audit OK: ${summary}`);
  } else {
    console.error(`audit FAILED: ${summary}`);
    for (const problem of report.problems) console.error(`- ${problem}`);
    process.exitCode = 1;
  }
} catch (error) {
  if (!(error instanceof AuditIncomplete)) throw error;
  console.error(`audit did not finish: ${error.message}; nothing was concluded`);
  if (!interrupted.signal.aborted) process.exitCode = 2;
} finally {
  await database.close();
}
