import { loadConfig } from "./config";
import { startServer } from "./server";

const startedAt = performance.now();
const config = loadConfig();
const server = await startServer(config);
console.log(
  `poker-bot-service listening on ${server.url} (db: ${server.database.kind}) in ${Math.round(performance.now() - startedAt)} ms — docs at ${server.url}/swagger`,
);

/** Stop accepting, let in-flight requests drain, stop actors, close the database cleanly. */
async function shutdown(signal: string) {
  console.log(`${signal}: shutting down`);
  try {
    await server.stop();
    process.exit(0);
  } catch (error) {
    console.error("shutdown failed", error);
    process.exit(1);
  }
}
process.once("SIGTERM", () => void shutdown("SIGTERM"));
process.once("SIGINT", () => void shutdown("SIGINT"));
