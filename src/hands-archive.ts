import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { archivePartition, partitionsPastRetention, restorePartition } from "./modules/match-host/hand-archive";

/**
 * `bun run hands:archive`: every month of hand histories past HANDS_RETENTION_MONTHS is archived
 * into HANDS_ARCHIVE_DIR (zstd files, verified) and its partition dropped; the API keeps serving
 * those matches from the files. `-- --month YYYY_MM` archives one month; `-- --restore YYYY_MM`
 * puts one back. Run it from cron (monthly is enough) on any one node. docs/SCALING.md, "Hand storage".
 */
const config = loadConfig();
const [flag, month] = process.argv.slice(2);
const dir = config.handStorage.archiveDir;
if (!dir) {
  console.error("HANDS_ARCHIVE_DIR is not set: where should the archives go?");
  process.exit(2);
}
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 });
try {
  if (flag === "--restore") {
    const restored = await restorePartition(database.db, dir, month);
    console.log(`restored ${month}: ${restored.hands} hands of ${restored.matches} matches back in the database`);
  } else {
    let months: string[];
    if (flag === "--month") months = [month];
    else {
      if (config.handStorage.retentionMonths === null) {
        console.error("HANDS_RETENTION_MONTHS is not set: give it, or name a month with --month YYYY_MM");
        process.exit(2);
      }
      months = (await partitionsPastRetention(database.db, new Date(), config.handStorage.retentionMonths)).map((name) => name.slice("hand_chunks_".length));
    }
    for (const m of months) {
      const archived = await archivePartition(database.db, dir, m);
      console.log(`archived ${m}: ${archived.hands} hands of ${archived.matches} matches in ${archived.bytes} bytes (${dir}/hands-${m}.zst), partition dropped`);
    }
    if (months.length === 0) console.log("no month is past the retention");
  }
} finally {
  await database.close();
}
