import { loadConfig } from "./config";
import { startServer } from "./server";
import { createLogger, logTo } from "./lib/log";

const startedAt = performance.now();
const config = loadConfig();

// A stray rejection or exception (a driver callback, a timer) must not take every match and
// socket of this process down with it: log it and keep serving. Money stays exact regardless,
// as every balance change is one guarded SQL transaction; known sources are fixed at the source.
// Events go to stderr as structured lines (lib/log); stdout keeps the banner and the shutdown report for whoever started it.
const logger = createLogger({ node: config.hostId, format: config.logFormat, level: config.logLevel });
const log = logTo(logger);
process.on("unhandledRejection", (reason) => log("unhandled rejection (kept running)", reason ?? "undefined"));
process.on("uncaughtException", (error) => log("uncaught exception (kept running)", error));
const server = await startServer(config, {
  logger,
  // Another node took this one's tables over (it was paused or cut off): stop; a supervisor restarts it fresh.
  onLeaseLost: () => process.exit(1),
}).catch((error) => {
  console.error(`poker-bot-service did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(
  `poker-bot-service ${config.natsUrl ? `node ${config.hostId} of cluster ${config.clusterName}` : "(single process)"} listening on ${server.url}${["0.0.0.0", "::"].includes(server.host) ? ` (every interface: HOST=${server.host})` : " (this machine only; HOST=0.0.0.0 serves others)"} (db: ${server.database.kind}) in ${Math.round(performance.now() - startedAt)} ms — docs at ${server.url}/swagger`,
);

/** Stop accepting, let in-flight requests drain, stop actors, close the database cleanly. */
async function shutdown(signal: string) {
  console.log(`${signal}: shutting down`);
  try {
    const report = await server.stop();
    for (const line of report) console.log(`  ${line}`);
    console.log(`stopped cleanly (${report.length === 0 ? "no tables" : `${report.length} table${report.length > 1 ? "s" : ""}`}); the database is closed`);
    process.exit(0);
  } catch (error) {
    console.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
// `on`, not `once`: under `bun run start` a Ctrl-C reaches the server twice (from the terminal's process
// group and forwarded by the wrapper); a second signal with no handler would kill it mid-shutdown (rc 130).
let shuttingDown = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (shuttingDown) return;
    shuttingDown = true;
    void shutdown(signal);
  });
}
