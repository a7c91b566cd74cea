import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { rebuildRatings } from "./modules/ratings/store";

/** `bun run ratings:rebuild`: recompute every rating from the match records (after a formula change). */
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 });
try {
  const { matches, bots } = await rebuildRatings(database.db, config.handStorage.archiveDir);
  console.log(`ratings rebuilt: ${matches} rated matches replayed, ${bots} bots rated`);
} finally {
  await database.close();
}
