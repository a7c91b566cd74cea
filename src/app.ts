import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Db } from "./db";
import { systemClock, type Clock } from "./lib/clock";
import { createLogger, logTo, type Log } from "./lib/log";
import type { Logger } from "pino";
import { requestLog } from "./plugins/request-log";
import { isPageForm, payloadTooLarge, rawBodyRouteOf, readFormBody, readJsonBody, readRawBody, refuseContentEncoding } from "./lib/http";
import { errorHandler } from "./plugins/error-handler";
import { RateLimiter } from "./lib/rate-limit";
import { SharedRateLimiter } from "./modules/auth/shared-limiter";
import { webModule } from "./modules/web";
import { PAGE_CODE_UPLOAD_BODY } from "./modules/web/account";
import { WebSessions } from "./modules/web/sessions";
import { listTransactions } from "./modules/credits/transactions";
import { notFoundPage } from "./modules/web/layout";
import { authModule } from "./modules/auth";
import { Identity } from "./modules/auth/service";
import { botsModule } from "./modules/bots";
import { Bots } from "./modules/bots/service";
import { databaseKeyCheck } from "./modules/bots/key-check";
import { creditsModule } from "./modules/credits";
import { Accounts } from "./modules/credits/service";
import { docsModule } from "./modules/docs";
import { httpConventions, methodsOfRoutes } from "./plugins/http-conventions";
import { healthModule } from "./modules/health";
import { EMBEDDED_REACHABILITY, type DatabaseReachability } from "./db/probe";
import { databaseGate } from "./plugins/database-gate";
import { matchesModule } from "./modules/matches";
import { httpMetrics, metricsModule } from "./modules/metrics";
import { instrument } from "./modules/metrics/instrument";
import { traceServices } from "./modules/metrics/traces";
import { NO_TRACING, type Tracing } from "./lib/tracing";
import { httpTracing } from "./plugins/http-tracing";
import { Metrics } from "./modules/metrics/service";
import { Matches } from "./modules/matches/service";
import { protocolModule } from "./modules/protocol";
import { BotGateway } from "./modules/protocol/gateway";
import { hostedNotice } from "./modules/protocol/messages";
import { Spectators } from "./modules/protocol/spectators";
import type { Bus } from "./lib/bus/bus";
import type { FenceToken, LeaseStanding } from "./modules/cluster/lease";
import { LocalBus } from "./lib/bus/local-bus";
import { BotRelay } from "./modules/cluster/bot-relay";
import { ClusterNode } from "./modules/cluster/node";
import { TableRelay } from "./modules/cluster/table-relay";
import { ratingsModule } from "./modules/ratings";
import { Ratings } from "./modules/ratings/service";
import { RatingsApplier } from "./modules/ratings/applier";
import { statsModule } from "./modules/stats";
import { Stats } from "./modules/stats/service";
import { tablesModule } from "./modules/tables";
import { Tables } from "./modules/tables/service";
import { Ladder } from "./modules/ladder/service";
import { Matchmaker } from "./modules/ladder/matchmaker";
import { ladderModule } from "./modules/ladder";
import { competitionsModule } from "./modules/competitions";
import { Challenges } from "./modules/competitions/challenges";
import { Tournaments } from "./modules/competitions/tournaments";
import { RoundRobins } from "./modules/competitions/round-robin";
import { CompetitionsDirector } from "./modules/competitions/director";
import { CompetitionPlacement } from "./modules/competitions/placement";
import { BotPresence, connectionsOf } from "./modules/protocol/presence";
import { MatchHost } from "./modules/match-host/host";
import { DeckSeal } from "./modules/match-host/deck-seal";
import { HandMaintenance } from "./modules/match-host/hand-maintenance";
import { handsRecordedOf } from "./modules/match-host/hand-store";
import { TableRouting } from "./modules/cluster/routing";
import type { AuthOptions } from "./plugins/auth";
import { IdempotencyKeys } from "./plugins/idempotency";
import { createSandbox, type Sandbox } from "./modules/hosted/sandbox";
import { CODE_UPLOAD_BODY, HostedCode, hostedModule } from "./modules/hosted";
import { refuseIfHostedSeatsFull } from "./modules/hosted/code-store";
import { HostedPlay } from "./modules/hosted/players";
import { mcpModule } from "./modules/mcp";
import { acpcModule } from "./modules/acpc";
import { AcpcPorts } from "./modules/acpc/service";
import { AgentSeats } from "./modules/mcp/service";
import type { RouteSchemas } from "./modules/mcp/tools";

export interface AppDeps {
  db: Db;
  dbKind: "postgres" | "pglite";
  config: Config;
  jwtSecret: string;
  clock?: Clock;
  /** The log seam (see lib/log); default: structured lines on stderr. */
  log?: Log;
  /** For the per-request lines at LOG_LEVEL=debug (absent: none). */
  logger?: Logger;
  /** Between nodes (NATS); default: an in-process bus, one node alone. */
  bus?: Bus;
  /** This node's lease, fencing every table write (absent: no fencing, a single app in tests). */
  fence?: () => FenceToken | null;
  /** Whether the lease provably stands now: tables deal and broadcast only then (absent: always). */
  leaseStanding?: LeaseStanding;
  /** Spans (lib/tracing), started by server.ts when OTEL_EXPORTER_OTLP_ENDPOINT is set; default: off. */
  tracing?: Tracing;
  /** Where hosted bots run (issue 27, docs/HOSTED.md); default: a pool that starts its workers at the first hosted bot. */
  sandbox?: Sandbox;
  /** Whether this node reaches its database (server.ts's probe): /health, and requests refused at once while not; default: always. */
  database?: DatabaseReachability;
}

export interface Services {
  identity: Identity;
  bots: Bots;
  accounts: Accounts;
  gateway: BotGateway;
  spectators: Spectators;
  /** The tables this node hosts and their matches. */
  host: MatchHost;
  tables: Tables;
  matches: Matches;
  stats: Stats;
  ratings: Ratings;
  /** Applies recorded matches to the ratings off the hot path (server.ts starts its polling; tests await `settled()`). */
  ratingsApplier: RatingsApplier;
  idempotency: IdempotencyKeys;
  cluster: ClusterNode;
  botRelay: BotRelay;
  tableRelay: TableRelay;
  ladder: Ladder;
  /** Challenges between developers' bots (competitions/). */
  challenges: Challenges;
  tournaments: Tournaments;
  /** Starts due round robins and moves running ones along while this node holds the competitions role (started by server.ts). */
  competitions: CompetitionsDirector;
  /** Pairs the ladder's entries while this node holds the cluster's matchmaker role (started by server.ts). */
  matchmaker: Matchmaker;
  presence: BotPresence;
  clock: Clock;
  /** The one seam to untrusted code: hosted bots' files are validated and played only through it. */
  sandbox: Sandbox;
  /** Hosted bots' uploaded code and logs, as their owners read them. */
  hosted: HostedCode;
  /** Hosted bots at this node's tables: their contexts per match, their decisions (metrics). */
  hostedPlay: HostedPlay;
  /** Hand storage upkeep: monthly partitions, hands still in JSON converted (started by server.ts). */
  handMaintenance: HandMaintenance;
  /** Bots played by LLM agents through /mcp: their seats in the gateway on this node. */
  agentSeats: AgentSeats;
  /** One-time TCP ports of ACPC players on this node. */
  acpcPorts: AcpcPorts;
}

/** Routes whose body is a file taken as it is, not JSON (each with its own cap). */
const RAW_BODY_ROUTES = [CODE_UPLOAD_BODY, PAGE_CODE_UPLOAD_BODY];

const defaultLogs = new WeakMap<Config, Log>();
/** One default logger per configuration, shared by the services and the app built from it. */
function defaultLog(config: Config): Log {
  let log = defaultLogs.get(config);
  if (!log) defaultLogs.set(config, (log = logTo(createLogger({ node: config.hostId, format: config.logFormat, level: config.logLevel }))));
  return log;
}

export function createServices(deps: AppDeps): Services {
  const clock = deps.clock ?? systemClock;
  const { config, db } = deps;
  const log = deps.log ?? defaultLog(config);
  const sandbox = deps.sandbox ?? createSandbox({ memoryBytes: config.sandboxMemoryMiB * 1024 * 1024 });
  const bots = new Bots(db, clock, config.maxBotsPerDeveloper);
  const hosted = new HostedCode(db, clock, sandbox, bots, {
    uploads: new SharedRateLimiter(db, "upload", config.hostedUploadsPerMinute, 60_000, clock),
    versionsPerBot: config.hostedVersionsPerBot,
  });
  bots.codeVersions = (botIds) => hosted.currentVersions(botIds);
  bots.connections = (botIds) => connectionsOf(db, botIds);
  const accounts = new Accounts({
    db,
    clock,
    faucetAmount: config.faucetAmount,
    faucetCooldownMs: config.faucetCooldownMs,
    idleMs: config.accountIdleMs,
    log,
  });
  const stats = new Stats(db, config.leaderboardMinMatches, clock, config.statsCacheMs);
  const ratingsApplier = new RatingsApplier({ db, log, pollMs: config.ratingsPollMs });
  const gateway = new BotGateway(clock, new RateLimiter(config.botMessagesPerSecond, 1_000, clock));
  const spectators = new Spectators({ perTable: config.spectatorsPerTable, perAddress: config.spectatorsPerAddress });
  const hostedPlay = new HostedPlay(sandbox, db, () => clock.now(), log);
  const deckSeal = new DeckSeal(db, config.deckSealKey);
  const host = new MatchHost({
    db,
    hostedPlay,
    clock,
    accounts,
    bots,
    gateway,
    spectators,
    hostId: config.hostId,
    timeBank: { initialMs: config.timeBankMs, refillMs: config.timeBankRefillMs, capMs: config.timeBankCapMs },
    matchRecorded: (botIds) => {
      stats.forget(botIds);
      ratingsApplier.nudge();
    },
    fence: deps.fence,
    leaseStanding: deps.leaseStanding,
    deckSeal,
    log,
  });
  const routing = new TableRouting(db, config.hostId, (tableId) => host.hosts(tableId));
  const tables = new Tables({
    db,
    clock,
    bots,
    spectators,
    gateway,
    host,
    routing,
    handsRecorded: (matchIds) => handsRecordedOf(db, matchIds),
    hostId: config.hostId,
    defaultBuyIn: config.defaultBuyIn,
    maxOpenTablesPerDeveloper: config.maxOpenTablesPerDeveloper,
    hostedSeatCap: (developerId, botId) => refuseIfHostedSeatsFull(db, developerId, botId, config.maxHostedSeatsPerDeveloper),
  });
  const cluster = new ClusterNode(deps.bus ?? new LocalBus(), config.hostId, config.clusterName, clock, () => host.hostedCount());
  const botRelay = new BotRelay(cluster, gateway);
  const tableRelay = new TableRelay(cluster, host, spectators, deps.tracing);
  botRelay.start();
  bots.keyRotated = (botId) => botRelay.revokeEverywhere(botId);
  // Code uploaded while the bot's remote socket is open (on any node): it is told at once that it waits from now on.
  hosted.hostingChanged = (botId, version) => {
    if (version !== null) gateway.send(botId, { type: "error", code: "BOT_HOSTED", message: hostedNotice(botId, version) });
  };
  // The bus closes old sockets at once; the database check catches what the bus cannot carry (an outage).
  gateway.keyCheck = databaseKeyCheck(db);
  tableRelay.start();
  routing.relay = tableRelay;
  const presence = new BotPresence(db, config.hostId, clock, log);
  gateway.presence = presence;
  const ladder = new Ladder(db, bots, clock, config.ladder, { faucetCooldownMs: config.faucetCooldownMs, accounts, hostedSeatLimit: config.maxHostedSeatsPerDeveloper });
  const matchmaker = new Matchmaker({ db, clock, ladder, tables, host, bots, accounts, settings: config.ladder, hostId: config.hostId, cluster, leaseStanding: deps.leaseStanding, log });
  host.relay = tableRelay;
  spectators.remote = tableRelay;
  const competitionPlacement = new CompetitionPlacement(db, cluster, tables, log);
  const roundRobins = new RoundRobins(db, clock, tables, deckSeal, log, competitionPlacement);
  return {
    clock,
    sandbox,
    hosted,
    hostedPlay,
    cluster,
    botRelay,
    tableRelay,
    identity: new Identity(db, clock, { memoryCost: config.passwordMemoryCostKiB, timeCost: config.passwordTimeCost }),
    bots,
    accounts,
    gateway,
    spectators,
    host,
    tables,
    ladder,
    matchmaker,
    challenges: new Challenges(db, clock, bots, tables),
    tournaments: new Tournaments(db, clock, bots, tables, roundRobins, config.handStorage.archiveDir),
    competitions: new CompetitionsDirector({ db, clock, roundRobins, placement: competitionPlacement, hostId: config.hostId, tickMs: config.competitionsTickMs, log, leaseStanding: deps.leaseStanding }),
    presence,
    matches: new Matches(db, config.handStorage.archiveDir),
    stats,
    ratings: new Ratings(db),
    ratingsApplier,
    idempotency: new IdempotencyKeys(db, clock),
    acpcPorts: new AcpcPorts({ db, bots, gateway, clock, ...config.acpc }),
    agentSeats: new AgentSeats({ bots, gateway, clock, presenceMs: config.mcp.presenceMs, maxWaitMs: config.mcp.maxWaitMs }),
    handMaintenance: new HandMaintenance({ db, deckSeal, now: () => clock.now(), log, convertLegacy: config.handStorage.convertLegacy }),
  };
}

/** Composes the feature modules. Never listens: tests call `app.handle`, main.ts calls `listen`. */
export function createApp(deps: AppDeps) {
  const services = createServices(deps);
  const metrics = new Metrics(deps.config.hostId);
  instrument(metrics, services, deps.bus);
  const tracing = deps.tracing ?? NO_TRACING;
  traceServices(tracing, services);
  const auth: AuthOptions = {
    secret: deps.jwtSecret,
    clock: services.clock,
    ttlSeconds: deps.config.tokenTtlSeconds,
    developerExists: (developerId) => services.identity.exists(developerId),
    verified: new Map(),
  };
  const maxBodyBytes = deps.config.maxBodyBytes;
  // One budget per client address for the API's sign-in and the pages' (the same buckets).
  const signInLimits = {
    perMinute: new SharedRateLimiter(deps.db, "auth", deps.config.authRateLimitPerMinute, 60_000, services.clock),
    registrationsPerDay: new SharedRateLimiter(deps.db, "register-day", deps.config.registrationsPerAddressPerDay, 86_400_000, services.clock),
  };
  // systemRouter off: with Bun's router, GET /api/bots/:botId shadows the WebSocket route
  // /api/bots/connect (Elysia 1.4 maps only plain routes there). Elysia's own router orders them right.
  const methodsOf = methodsOfRoutes(() => app.routes);
  // /mcp's tools are the app's own routes: their schemas, called in-process with the agent's token.
  const appRoutes = (): RouteSchemas[] => app.routes as unknown as RouteSchemas[];
  const handleInApp = (request: Request): Promise<Response> => app.handle(request);
  const app = new Elysia({ normalize: false, systemRouter: false })
    .use(httpMetrics(metrics))
    .use(tracing.enabled ? httpTracing(tracing) : new Elysia({ name: "plugin:http-tracing-off" }))
    .use(requestLog(deps.logger))
    .use(errorHandler(deps.log ?? defaultLog(deps.config), () => notFoundPage("No page at this address."), methodsOf))
    .use(httpConventions({ corsOrigins: deps.config.corsOrigins, methodsOf }))
    .onRequest(({ request }) => {
      const length = Number(request.headers.get("content-length") ?? 0);
      const cap = length > maxBodyBytes ? (rawBodyRouteOf(request, RAW_BODY_ROUTES)?.maxBytes ?? maxBodyBytes) : maxBodyBytes;
      if (length > cap) throw payloadTooLarge(cap);
      refuseContentEncoding(request);
    })
    .use(databaseGate(deps.database ?? EMBEDDED_REACHABILITY, deps.database !== undefined && deps.database !== EMBEDDED_REACHABILITY))
    .onParse({ as: "global" }, ({ request, contentType }) => {
      const raw = rawBodyRouteOf(request, RAW_BODY_ROUTES);
      const timeoutMs = deps.config.bodyTimeoutMs;
      if (raw) return readRawBody(request, raw, timeoutMs);
      if (isPageForm(request, contentType)) return readFormBody(request, { maxBytes: maxBodyBytes, timeoutMs });
      return readJsonBody(request, contentType, { maxBytes: maxBodyBytes, timeoutMs });
    })
    .use(docsModule())
    .use(
      healthModule({
        dbKind: deps.dbKind,
        cluster: services.cluster,
        matchmaker: () => services.matchmaker.isMatchmaker(),
        database: deps.database ?? EMBEDDED_REACHABILITY,
        leaseStanding: deps.leaseStanding ?? (() => true),
      }),
    )
    .use(metricsModule(metrics, { token: deps.config.metricsToken, trustProxy: deps.config.trustProxy }))
    .use(authModule(services.identity, auth, signInLimits, deps.config.trustProxy))
    .use(protocolModule(services.bots, services.gateway))
    .use(botsModule(services.bots, auth, services.idempotency, { wholeListConcurrency: deps.config.botListConcurrency }))
    .use(hostedModule(services.hosted, auth, services.idempotency))
    .use(creditsModule(deps.db, services.accounts, auth, services.idempotency, deps.config))
    .use(tablesModule(services.tables, auth, services.idempotency, deps.config))
    .use(matchesModule(services.matches, auth))
    .use(statsModule(services.stats, deps.config.leaderboardMinMatches))
    .use(ratingsModule(services.ratings))
    .use(ladderModule(services.ladder, auth, deps.config.ladder))
    .use(acpcModule(services.acpcPorts, auth))
    .use(
      mcpModule({
        auth,
        seats: services.agentSeats,
        routes: appRoutes,
        handle: handleInApp,
        allowedOrigins: deps.config.mcp.allowedOrigins,
        maxWaitMs: deps.config.mcp.maxWaitMs,
      }),
    )
    .use(competitionsModule(services.challenges, services.tournaments, auth, services.idempotency))
    .use(
      webModule({
        ...services,
        leaderboardMinMatches: deps.config.leaderboardMinMatches,
        db: deps.db,
        tv: deps.config.tv,
        sessions: new WebSessions(deps.db, services.clock, deps.config.webSessionTtlSeconds),
        signInLimits,
        trustProxy: deps.config.trustProxy,
        faucetAmount: deps.config.faucetAmount,
        transactions: (developerId, page) => listTransactions(deps.db, developerId, page),
      }),
    );
  return Object.assign(app, { services, metrics });
}

export type App = ReturnType<typeof createApp>;
