import { createApp, type App } from "./app";
import type { Config } from "./config";
import { openDatabase, type Database } from "./db";
import { ensureJwtSecret } from "./db/settings";
import type { Clock } from "./lib/clock";

export interface RunningServer {
  app: App;
  database: Database;
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Opens the database (running migrations), builds the app and listens. Used by main.ts and tests. */
export async function startServer(config: Config, options: { clock?: Clock } = {}): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir });
  const jwtSecret = await ensureJwtSecret(database.db, config.jwtSecret);
  const app = createApp({ db: database.db, dbKind: database.kind, config, jwtSecret, clock: options.clock });
  const recovered = await app.services.tables.recover();
  if (recovered.aborted > 0 || recovered.resumed > 0) {
    console.log(
      `recovered tables: ${recovered.aborted} interrupted match(es) aborted (${recovered.seatsCashedOut} seat(s) cashed out), ${recovered.resumed} waiting table(s) resumed`,
    );
  }
  // reusePort off: a second process on the same port would silently share traffic (and a PGlite directory).
  // The server's own body cap sits well above MAX_BODY_BYTES: up to it, the app answers a §8 413
  // itself; beyond it Bun cuts the connection (it never buffers more).
  app.listen({ port: config.port, maxRequestBodySize: Math.max(config.maxBodyBytes * 16, 16 * 1024 * 1024), reusePort: false });
  const port = app.server!.port!;
  let stopping: Promise<void> | undefined;
  return {
    app,
    database,
    port,
    url: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= (async () => {
        // Stop accepting; in-flight requests finish. Matches stop at a hand boundary and sockets close.
        const drained = app.stop(false).then(() => true);
        await app.services.tables.shutdown();
        const closedInTime = await Promise.race([drained, Bun.sleep(5_000).then(() => false)]);
        if (!closedInTime) await app.stop(true).catch(() => {});
        await app.services.accounts.stopAll();
        await database.close();
      })();
      return stopping;
    },
  };
}
