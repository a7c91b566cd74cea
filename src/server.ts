import { createApp, type App } from "./app";
import type { Config } from "./config";
import { openDatabase, type Database } from "./db";
import { ensureJwtSecret } from "./db/settings";
import type { Clock } from "./lib/clock";
import { LocalBus } from "./lib/bus/local-bus";
import { releaseLease } from "./modules/cluster/lease";
import { LeaseKeeper } from "./modules/cluster/takeover";
import { MAX_FRAME_BYTES } from "./modules/protocol";
import { DatabaseProbe, EMBEDDED_REACHABILITY } from "./db/probe";
import { createLogger, logTo } from "./lib/log";
import { NO_TRACING, type Tracing } from "./lib/tracing";
import type { Logger } from "pino";

/** A drain step slower than this is logged with its time. */
const SLOW_SHUTDOWN_STEP_MS = 2_000;

export interface RunningServer {
  app: App;
  /** Spans (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  tracing: Tracing;
  database: Database;
  port: number;
  /** Where to reach it from this machine. */
  url: string;
  /** The address it is bound to (HOST). */
  host: string;
  /** Stops cleanly; resolves with one line per table this process hosted, saying what became of it. */
  stop(): Promise<string[]>;
}

/** Opens the database (running migrations), builds the app and listens. Used by main.ts and tests. */
export async function startServer(config: Config, options: { clock?: Clock; onLeaseLost?: () => void; logger?: Logger } = {}): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, servingHost: config.hostId });
  const jwtSecret = await ensureJwtSecret(database.db, config.jwtSecret);
  const logger = options.logger ?? createLogger({ node: config.hostId, format: config.logFormat, level: config.logLevel });
  const log = logTo(logger);
  // The lease first: a second process with a live HOST_ID stops here, before it binds or touches a table.
  let app: App;
  const lease = await LeaseKeeper.acquire(
    database.db,
    config.hostId,
    (rows) => {
      app.metrics.tablesTakenOver.inc(rows.length);
      return app.services.host.adopt(rows);
    },
    () => {
      app.metrics.leaseLost.inc();
      log("this node's lease was taken over (it was paused or cut off): it drops its tables and writes nothing more");
      app.services.host.abandon();
      options.onLeaseLost?.();
    },
    log,
  ).catch(async (error) => {
    await database.close();
    throw error;
  });
  // NATS's client is loaded only for a cluster node: a single process starts without it.
  const bus = config.natsUrl
    ? await (await import("./lib/bus/nats-bus")).NatsBus.connect(config.natsUrl, `poker ${config.clusterName} ${config.hostId}`, log)
    : new LocalBus();
  // OpenTelemetry is loaded only with OTEL_EXPORTER_OTLP_ENDPOINT set: otherwise tracing is the no-op seam.
  const tracing: Tracing = config.tracing ? (await import("./lib/tracing-otel")).openTelemetryTracing(config.tracing, config.hostId) : NO_TRACING;
  // Whether the database answers, from a probe of its own (PGlite runs in this process: always).
  const reachability = config.databaseUrl ? new DatabaseProbe(config.databaseUrl, config.databaseProbeTimeoutMs, log).start() : EMBEDDED_REACHABILITY;
  app = createApp({
    db: database.db,
    dbKind: database.kind,
    config,
    jwtSecret,
    clock: options.clock,
    bus,
    log,
    logger,
    fence: () => lease.token,
    leaseStanding: lease.standing,
    tracing,
    database: reachability,
    // A drained peer has given its lease up before it says it leaves: claim its tables at once.
    peerLeft: () => void lease.claimNow().catch((error) => log("claiming a departed peer's tables failed (the next round retries)", error)),
    // Spectators' messages fan out through the server's pub/sub once it listens (nobody watches before).
    publishTopic: (topic, text) => app.server?.publish(topic, text),
  });
  app.metrics.sampled("poker_lease_standing", "1 while this node's lease provably stands (its tables deal only then)", [], () => [[{}, lease.standing() ? 1 : 0]]);
  app.metrics.sampled("poker_database_reachable", "1 while this node's database probe is answered (0: /health 503, requests that need it 503 DATABASE_UNAVAILABLE)", [], () => [[{}, reachability.reachable() ? 1 : 0]]);
  // Sockets of this HOST_ID's previous process died with it (before any bot connects to this one).
  await app.services.presence.forgetThisNode().catch((error) => log("forgetting this node's old bot connections failed", error));
  app.services.cluster.start();
  // reusePort off: a second process on the same port would silently share traffic (and a PGlite directory).
  // The server's own body cap sits well above MAX_BODY_BYTES: up to it, the app answers a §8 413
  // itself; beyond it Bun cuts the connection (it never buffers more).
  // Bun's frame cap is per server (a route's own option is not applied): every socket, bot or
  // spectator, may send at most MAX_FRAME_BYTES; a bigger frame closes it with 1009.
  app.listen({
    hostname: config.host,
    port: config.port,
    maxRequestBodySize: Math.max(config.maxBodyBytes * 16, 16 * 1024 * 1024),
    reusePort: false,
    websocket: { maxPayloadLength: MAX_FRAME_BYTES },
  });
  const recovered = await app.services.host.recover();
  if (recovered.running > 0 || recovered.waiting > 0) {
    log(`resumed this node's tables: ${recovered.running} running match(es) from their last recorded hand, ${recovered.waiting} waiting table(s)`);
  }
  lease.start();
  app.services.matchmaker.start();
  app.services.competitions.start();
  app.services.ratingsApplier.start();
  app.services.handMaintenance.start();
  app.services.host.startExpiry(config.waitingTableTtlMs);
  const forgetOldKeys = setInterval(() => void app.services.idempotency.sweep().catch((error) => log("sweeping idempotency keys failed", error)), 10 * 60_000);
  forgetOldKeys.unref();
  const port = app.server!.port!;
  let stopping: Promise<string[]> | undefined;
  return {
    app,
    tracing,
    database,
    port,
    url: `http://${["0.0.0.0", "::"].includes(config.host) ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    host: config.host,
    stop() {
      // Each step of a drain is timed: one that takes long says so (a drain must end well within a supervisor's patience).
      const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
        const started = performance.now();
        // A step still running is named while it runs (one that never ends would otherwise say nothing).
        const stillRunning = setInterval(() => log(`shutdown: ${name} still running after ${Math.round(performance.now() - started)} ms`), SLOW_SHUTDOWN_STEP_MS * 2.5);
        try {
          return await work();
        } finally {
          clearInterval(stillRunning);
          const ms = performance.now() - started;
          if (ms > SLOW_SHUTDOWN_STEP_MS) log(`shutdown: ${name} took ${Math.round(ms)} ms`);
        }
      };
      stopping ??= (async () => {
        clearInterval(forgetOldKeys);
        // No new ladder table from here on; another node takes the matchmaker role at once.
        await step("the matchmaker", () => app.services.matchmaker.stop());
        // Unused ACPC ports stop listening (a connected player's socket closes with the gateway's).
        app.services.acpcPorts.closeAll();
        await step("the competitions director", () => app.services.competitions.stop());
        // Stop accepting; in-flight requests finish. Matches stop at a hand boundary and sockets close.
        const drained = app.stop(false).then(() => true);
        // Matches stop at their next hand boundary, resumable; giving the lease up lets peers take them at once.
        const report = await step("the matches", () => app.services.host.shutdown());
        await step("the sandbox", () => app.services.sandbox.close());
        // Matches still pending stay so: the next applier (a peer's, or this node's next start) applies them.
        await step("the ratings applier", () => app.services.ratingsApplier.stop());
        await step("hand maintenance", () => app.services.handMaintenance.stop());
        lease.stop();
        await releaseLease(database.db, lease.token).catch((error) => log("releasing the lease failed (peers take over when it expires)", error));
        const closedInTime = await Promise.race([drained, Bun.sleep(5_000).then(() => false)]);
        if (!closedInTime) await app.stop(true).catch(() => {});
        await step("the account actors", () => app.services.accounts.stopAll());
        await step("the cluster node", () => app.services.cluster.stop());
        app.services.botRelay.stop();
        app.services.tableRelay.stop();
        await step("the bus", () => bus.close());
        // The spans still buffered go out before the process ends.
        await tracing.shutdown().catch((error) => log("exporting the last spans failed", error));
        await reachability.stop();
        await database.close();
        return report;
      })();
      return stopping;
    },
  };
}
