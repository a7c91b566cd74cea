import { loadConfig } from "./config";
import { openDatabase } from "./db";
import { DeckSeal } from "./modules/match-host/deck-seal";
import { convertLegacyHands, sealPlainSecrets } from "./modules/match-host/hand-conversion";
import { ensureMonthlyPartitions } from "./modules/match-host/hand-maintenance";

/**
 * `bun run hands:convert`: converts every hand still stored as JSON into chunks, in the foreground
 * (a serving node does the same in the background at each start). Resumable: killed, it goes on
 * from its last committed batch. HANDS_CONVERSION_BATCH: matches per transaction (default 20);
 * HANDS_CONVERSION_PAUSE_MS: a pause after each batch (default none), to spare a busy database.
 */
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, maxConnections: 2 });
try {
  const seal = new DeckSeal(database.db, config.deckSealKey);
  await ensureMonthlyPartitions(database.db, new Date());
  await sealPlainSecrets(database.db, seal);
  const matchesPerBatch = Number(process.env.HANDS_CONVERSION_BATCH ?? 20);
  const pauseMs = Number(process.env.HANDS_CONVERSION_PAUSE_MS ?? 0);
  let batches = 0;
  const pass = await convertLegacyHands(database.db, seal, {
    matchesPerBatch,
    log: (line) => console.log(line),
    onBatch: (batch) => console.log(`batch ${++batches} committed: ${batch.hands} hands of ${batch.converted} match(es)`),
    pauseMs,
  });
  if (pass.busy) console.log("another process is converting: try again when it is done");
  console.log(`hands converted: ${pass.hands} hands of ${pass.converted} match(es); ${pass.kept} match(es) keep their JSON rows; ${pass.running} running match(es) left for a later pass`);
} finally {
  await database.close();
}
