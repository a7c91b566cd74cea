/**
 * The service's composition root: AppDeps in, every service out (see `compose`).
 */
import type { Config } from "./config";
import type { Db } from "./db";
import { systemClock, type Clock } from "./lib/clock";
import { createLogger, logTo, type Log } from "./lib/log";
import type { Logger } from "pino";
import { RateLimiter } from "./lib/rate-limit";
import { SharedRateLimiter } from "./modules/auth/shared-limiter";
import { Identity } from "./modules/auth/service";
import { Bots } from "./modules/bots/service";
import { databaseKeyCheck } from "./modules/bots/key-check";
import { Accounts } from "./modules/credits/service";
import { type DatabaseReachability } from "./db/probe";
import { type Tracing } from "./lib/tracing";
import { Matches } from "./modules/matches/service";
import { BotGateway } from "./modules/protocol/gateway";
import { hostedNotice } from "./modules/protocol/messages";
import { Spectators } from "./modules/protocol/spectators";
import type { Bus } from "./lib/bus/bus";
import type { FenceToken, LeaseStanding } from "./modules/cluster/lease";
import { LocalBus } from "./lib/bus/local-bus";
import { BotRelay } from "./modules/cluster/bot-relay";
import { ClusterNode } from "./modules/cluster/node";
import { TableRelay } from "./modules/cluster/table-relay";
import { Ratings } from "./modules/ratings/service";
import { RatingsApplier } from "./modules/ratings/applier";
import { Stats } from "./modules/stats/service";
import { Tables } from "./modules/tables/service";
import { Ladder } from "./modules/ladder/service";
import { Matchmaker } from "./modules/ladder/matchmaker";
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
import { IdempotencyKeys } from "./plugins/idempotency";
import { createSandbox, type Sandbox } from "./modules/hosted/sandbox";
import { HostedCode } from "./modules/hosted";
import { refuseIfHostedSeatsFull } from "./modules/hosted/code-store";
import { HostedPlay } from "./modules/hosted/players";
import { AcpcPorts } from "./modules/acpc/service";
import { AgentSeats } from "./modules/mcp/service";
import { currentVersionNumbers } from "./modules/hosted/code-store";
import { HeldTables } from "./modules/tables/held-tables";
import { SEAT_LEDGER } from "./modules/tables/seat-rows";
import { TableCommands } from "./modules/tables/table-commands";
import { RemoteWatchers } from "./modules/cluster/remote-watchers";

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
  /** A peer said it leaves (server.ts: its lease keeper claims the peer's tables at once); absent: nothing to claim. */
  peerLeft?: (hostId: string) => void;
  /** The listening server's pub/sub, for spectators (server.ts); absent: each watcher gets a send of its own. */
  publishTopic?: (topic: string, text: string) => unknown;
}

export interface Services {
  identity: Identity;
  bots: Bots;
  accounts: Accounts;
  gateway: BotGateway;
  spectators: Spectators;
  /** The tables this node hosts and their matches. */
  host: MatchHost;
  /** Joins, leaves, closes and reads of the tables this node holds (whichever node received them). */
  commands: TableCommands;
  /** Which tables this node holds, and where each bot sits here. */
  held: HeldTables;
  /** Where a table's command runs: here, or at its host over the bus. */
  routing: TableRouting;
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


const defaultLogs = new WeakMap<Config, Log>();
/** One default logger per configuration, shared by the services and the app built from it. */
export function defaultLog(config: Config): Log {
  let log = defaultLogs.get(config);
  if (!log) defaultLogs.set(config, (log = logTo(createLogger({ node: config.hostId, format: config.logFormat, level: config.logLevel }))));
  return log;
}


/**
 * The one composition of the service's parts, shared by the server (server.ts → createApp) and the
 * CLI's local service (cli/local-service.ts starts that same server). Every part gets what it needs
 * at construction, as interfaces its own module declares: nothing is assigned afterwards and nothing
 * has a silent default, so a composition that forgets a dependency does not compile. The parts are
 * built in the order their needs allow; where two would need each other (the match host and the
 * cluster's table relay), one hears the other's notifications instead (HeldTables → TableRelay).
 */
export function compose(deps: AppDeps): Services {
  const clock = deps.clock ?? systemClock;
  const { config, db } = deps;
  const log = deps.log ?? defaultLog(config);
  const sandbox = deps.sandbox ?? createSandbox({ memoryBytes: config.sandboxMemoryMiB * 1024 * 1024 });
  const fence = () => deps.fence?.() ?? null;
  // Which tables this node holds: first, so that the gateway's snapshots and the cluster's heartbeat need no match host.
  const held = new HeldTables();
  const presence = new BotPresence(db, config.hostId, clock, log);
  const gateway = new BotGateway(clock, new RateLimiter(config.botMessagesPerSecond, 1_000, clock), {
    // The bus closes old sockets at once; the database check catches what the bus cannot carry (an outage).
    keyCheck: databaseKeyCheck(db),
    presence,
    snapshots: (botId) => held.snapshotFor(botId),
  });
  // A node without a lease keeper (tests, the CLI's local play) has no departed peer's tables to claim.
  const cluster = new ClusterNode(deps.bus ?? new LocalBus(), config.hostId, config.clusterName, clock, () => held.count(), deps.peerLeft ?? (() => {}));
  const botRelay = new BotRelay(cluster, gateway);
  botRelay.start();
  const bots = new Bots(db, clock, config.maxBotsPerDeveloper, {
    keyRotated: (botId) => botRelay.revokeEverywhere(botId),
    codeVersions: (botIds) => currentVersionNumbers(db, botIds),
    connections: (botIds) => connectionsOf(db, botIds),
  });
  const hosted = new HostedCode(
    db,
    clock,
    sandbox,
    bots,
    { uploads: new SharedRateLimiter(db, "upload", config.hostedUploadsPerMinute, 60_000, clock), versionsPerBot: config.hostedVersionsPerBot },
    // Code uploaded while the bot's remote socket is open (on any node): it is told at once that it waits from now on.
    (botId, version) => {
      if (version !== null) gateway.send(botId, { type: "error", code: "BOT_HOSTED", message: hostedNotice(botId, version) });
    },
  );
  const accounts = new Accounts({
    db,
    clock,
    seats: SEAT_LEDGER,
    faucetAmount: config.faucetAmount,
    faucetCooldownMs: config.faucetCooldownMs,
    idleMs: config.accountIdleMs,
    log,
  });
  const stats = new Stats(db, config.leaderboardMinMatches, clock, config.statsCacheMs);
  const ratingsApplier = new RatingsApplier({ db, log, pollMs: config.ratingsPollMs });
  const remoteWatchers = new RemoteWatchers(cluster);
  const spectators = new Spectators({ perTable: config.spectatorsPerTable, perAddress: config.spectatorsPerAddress }, remoteWatchers, deps.publishTopic);
  const hostedPlay = new HostedPlay(sandbox, db, () => clock.now(), log);
  const deckSeal = new DeckSeal(db, config.deckSealKey);
  const timeBank = { initialMs: config.timeBankMs, refillMs: config.timeBankRefillMs, capMs: config.timeBankCapMs };
  const commands = new TableCommands({
    db,
    clock,
    bots,
    held,
    hostId: config.hostId,
    seating: {
      db,
      accounts,
      gateway,
      hostId: config.hostId,
      initialTimeBankMs: timeBank.initialMs,
      tableOfBot: held.tableOfBot,
      fence,
      tell: (table, event) => held.tell(table, event),
    },
  });
  const host = new MatchHost({
    db,
    held,
    commands,
    hostedPlay,
    clock,
    gateway,
    spectators,
    hostId: config.hostId,
    timeBank,
    matchRecorded: (botIds) => {
      stats.forget(botIds);
      ratingsApplier.nudge();
    },
    fence,
    leaseStanding: deps.leaseStanding,
    deckSeal,
    log,
  });
  // Answers the held tables' commands from other nodes; hears from `held` which tables those are.
  const tableRelay = new TableRelay(cluster, commands, held, spectators, remoteWatchers, deps.tracing);
  tableRelay.start();
  const routing = new TableRouting(db, config.hostId, (tableId) => held.has(tableId), tableRelay);
  const tables = new Tables({
    db,
    clock,
    bots,
    spectators,
    gateway,
    host,
    held,
    commands,
    routing,
    handsRecorded: (matchIds) => handsRecordedOf(db, matchIds),
    hostId: config.hostId,
    defaultBuyIn: config.defaultBuyIn,
    maxOpenTablesPerDeveloper: config.maxOpenTablesPerDeveloper,
    hostedSeatCap: (developerId, botId) => refuseIfHostedSeatsFull(db, developerId, botId, config.maxHostedSeatsPerDeveloper),
  });
  const ladder = new Ladder(db, bots, clock, config.ladder, { faucetCooldownMs: config.faucetCooldownMs, accounts, hostedSeatLimit: config.maxHostedSeatsPerDeveloper });
  const matchmaker = new Matchmaker({ db, clock, ladder, tables, commands, bots, accounts, settings: config.ladder, hostId: config.hostId, cluster, leaseStanding: deps.leaseStanding, log });
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
    commands,
    held,
    routing,
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

