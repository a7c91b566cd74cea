import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { auditLedger } from "./modules/credits/audit";

/** `bun run audit`: exit 0 when the ledger invariants hold, else exit 1 with a report. */
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 }).catch((error: Error) => {
  console.error(`audit did not run: ${error.message}`);
  process.exit(2);
});
try {
  const report = await auditLedger(database.db);
  const summary = `${report.developers} developers, ${report.transactions} transactions; balances ${report.totalBalances} + open seats ${report.openSeatChips} vs faucet grants ${report.faucetGrants}`;
  if (report.ok) {
    console.log(`audit OK: ${summary}`);
  } else {
    console.error(`audit FAILED: ${summary}`);
    for (const problem of report.problems) console.error(`- ${problem}`);
    process.exitCode = 1;
  }
} finally {
  await database.close();
}
