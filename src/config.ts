import { availableParallelism } from "node:os";
import { BUILT_IN_STRATEGIES, type BuiltInStrategy } from "./db/schema";
import { parseTrustProxy, type TrustProxy } from "./lib/client-address";
import { logFormatFrom, type LogFormat } from "./lib/log";
import type { TracingSettings } from "./lib/tracing";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace"];

function logLevelFrom(value: string | undefined): string {
  if (!value) return "info";
  if (!LOG_LEVELS.includes(value)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${value}"`);
  return value;
}

/** Runtime configuration from the environment (SPEC §1). Defaults equal the brief's constants. */
export interface Config {
  port: number;
  /** The address the server binds (HOST): 127.0.0.1 by default, 0.0.0.0 to serve other machines. */
  host: string;
  databaseUrl: string | undefined;
  pgliteDir: string;
  nodeEnv: string;
  jwtSecret: string | undefined;
  /** DECK_SEAL_KEY: seals running matches' deck secrets (required in production; else one kept in the database). */
  deckSealKey: string | undefined;
  /** Where hand histories live as they age (docs/SCALING.md, "Hand storage"). */
  handStorage: HandStorageSettings;
  tokenTtlSeconds: number;
  /** How long a browser stays signed in on the pages (WEB_SESSION_TTL_SECONDS, default 7 days); sign-out ends it sooner. */
  webSessionTtlSeconds: number;
  /** /tv's pace and program: one action every TV_ACTION_MS (default 1000), the TV_HANDS_PER_MATCH (8) biggest pots of a match. */
  tv: { actionMs: number; handsPerMatch: number };
  faucetAmount: number;
  faucetCooldownMs: number;
  defaultBuyIn: number;
  leaderboardMinMatches: number;
  /** argon2id cost; the defaults are Bun's (64 MiB, t=2). Tests lower them. */
  passwordMemoryCostKiB: number;
  passwordTimeCost: number;
  /** An idle account actor is stopped after this long; it is rebuilt from rows on demand. */
  accountIdleMs: number;
  /** Largest accepted request body. */
  maxBodyBytes: number;
  /** DATABASE_PROBE_TIMEOUT_MS: the database probe unanswered this long makes the node unhealthy (503 on /health and on requests that need it). */
  databaseProbeTimeoutMs: number;
  /** BODY_TIMEOUT_MS: a request body not whole this long after it started is answered 408 and its connection closed (a body that trickles in). */
  bodyTimeoutMs: number;
  /** Names this process among those sharing a database (default: "local" alone, random in a cluster). */
  hostId: string;
  /** Remote bots: extra time beyond actionTimeoutMs, refilled per answered action up to the cap. */
  timeBankMs: number;
  timeBankRefillMs: number;
  timeBankCapMs: number;
  /** Register and login attempts per client IP per minute. */
  authRateLimitPerMinute: number;
  /** Developer registrations per client IP per day (each may own MAX_BOTS_PER_DEVELOPER bots). */
  registrationsPerAddressPerDay: number;
  /** Whole-list GET /api/bots requests answered at once per node. */
  botListConcurrency: number;
  /** Messages a bot may send per second on its socket (bursts up to this many). */
  botMessagesPerSecond: number;
  /** How long GET /api/stats/:botId may serve a bot's statistics from memory (0: never). */
  statsCacheMs: number;
  /** How often every node looks for rated matches other nodes recorded and nobody applied yet (its own are applied at once). */
  ratingsPollMs: number;
  /** A waiting table nobody sits at expires after this long. */
  waitingTableTtlMs: number;
  /** Per-developer caps. */
  maxBotsPerDeveloper: number;
  maxOpenTablesPerDeveloper: number;
  /** How often the competitions role's holder starts due round robins and advances running ones (COMPETITIONS_TICK_MS). */
  competitionsTickMs: number;
  /** Hosted bots (docs/HOSTED.md, "Limits"): every sandbox worker's memory together, per node (SANDBOX_MEMORY_MIB). */
  sandboxMemoryMiB: number;
  /** Seats a developer's hosted bots may hold at once, across the cluster (MAX_HOSTED_SEATS_PER_DEVELOPER). */
  maxHostedSeatsPerDeveloper: number;
  /** Code uploads per developer per minute (bursts up to this many): HOSTED_UPLOADS_PER_MINUTE. */
  hostedUploadsPerMinute: number;
  /** Code versions a bot keeps (HOSTED_VERSIONS_PER_BOT). */
  hostedVersionsPerBot: number;
  /** Anonymous watchers: per table (per node) and per client address. */
  spectatorsPerTable: number;
  spectatorsPerAddress: number;
  /** Which proxies may tell us the client's address (X-Forwarded-For); off by default. */
  trustProxy: TrustProxy;
  /** ACPC players' one-time TCP ports (docs/INTEROP.md). */
  acpc: {
    /** ACPC_BIND_HOST: the address the ports listen on; default HOST. */
    bindHost: string;
    /** ACPC_PUBLIC_HOST: the host name answered to the caller (behind a proxy); default the host the request named. */
    publicHost: string | undefined;
    /** ACPC_PORT_TTL_MS: an unused port closes after this long. */
    portTtlMs: number;
  };
  /** The agents' endpoint /mcp (docs/INTEROP.md). */
  mcp: {
    /** MCP_ALLOWED_ORIGINS: browser origins allowed besides the service's own (comma-separated); a request without Origin (an agent host) always is. */
    allowedOrigins: string[];
    /** AGENT_PRESENCE_MS: an agent's bot counts as connected while a wait_for_turn is open and this long after its last call. */
    presenceMs: number;
    /** MCP_MAX_WAIT_MS: the longest one wait_for_turn holds its HTTP request. */
    maxWaitMs: number;
  };
  /** CORS_ORIGINS: `*` (default: any origin may read public GETs) or a comma-separated list of origins that may call every route. */
  corsOrigins: string[] | "*";
  /** Set: every node with the same database and NATS is one service. Unset: one process, in-process bus. */
  natsUrl: string | undefined;
  /** Namespaces every subject (default derived from the database). */
  clusterName: string;
  /** LOG_FORMAT: json (one line per event) or pretty; default pretty on a terminal, else json. */
  logFormat: LogFormat;
  /** LOG_LEVEL: info by default; debug adds a line per HTTP request. */
  logLevel: string;
  /** Set: GET /metrics requires it as a bearer token; unset: it answers loopback clients only. */
  metricsToken: string | undefined;
  /** The ladder (docs/LADDER.md): what its tables are, and which built-ins the house enters. */
  ladder: LadderSettings;
  /** OTEL_EXPORTER_OTLP_ENDPOINT set: OpenTelemetry spans exported there (OTLP/HTTP JSON); unset: null, no tracing at all. */
  tracing: TracingSettings | null;
}

function integerFrom(env: Record<string, string | undefined>, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return value;
}

/** SANDBOX_MEMORY_MIB's default: 1 GiB, or 256 MiB a core on a machine with more than four (each sandbox worker starts with 16 MiB). */
export function defaultSandboxMemoryMiB(cores = availableParallelism()): number {
  return Math.max(1024, 256 * cores);
}

/** Rated matches the ratings applier computes before it applies them in one transaction (docs/RATINGS.md). */
export const RATINGS_APPLY_BATCH = 32;
/** The ratings worker thread's nice value (Linux): it computes only when the hot path leaves a core idle. */
export const RATINGS_WORKER_NICE = 19;
/**
 * The applier yields to play: before each match it computes, it waits while this process used more
 * than RATINGS_BUSY_CPU of a core over the last RATINGS_BUSY_WINDOW_MS (tables dealing), but never
 * defers a batch longer than RATINGS_MAX_DEFER_MS (a node busy for good still rates its matches).
 */
export const RATINGS_BUSY_CPU = 0.5;
export const RATINGS_BUSY_WINDOW_MS = 100;
export const RATINGS_MAX_DEFER_MS = 30_000;

/**
 * A new table's settings when its creator leaves them out (the brief's and SPEC's defaults); the
 * buy-in is DEFAULT_BUY_IN. The OpenAPI text reads them from here.
 */
export const TABLE_DEFAULTS = { smallBlind: 5, bigBlind: 10, maxPlayers: 6, maxHands: 200, actionTimeoutMs: 2_000 } as const;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? "development";
  const jwtSecret = env.JWT_SECRET || undefined;
  if (nodeEnv === "production" && !jwtSecret) {
    throw new Error("JWT_SECRET is required when NODE_ENV=production");
  }
  const deckSealKey = env.DECK_SEAL_KEY || undefined;
  if (nodeEnv === "production" && !deckSealKey) {
    throw new Error("DECK_SEAL_KEY is required when NODE_ENV=production (32 bytes, e.g. `openssl rand -hex 32`): it seals running matches' deck secrets");
  }
  if (deckSealKey) parseDeckSealKey(deckSealKey);
  return {
    port: integerFrom(env, "PORT", 3000),
    host: env.HOST || "127.0.0.1",
    databaseUrl: env.DATABASE_URL || undefined,
    pgliteDir: env.PGLITE_DIR || "./data/pglite",
    nodeEnv,
    jwtSecret,
    deckSealKey,
    handStorage: {
      archiveDir: env.HANDS_ARCHIVE_DIR || undefined,
      retentionMonths: env.HANDS_RETENTION_MONTHS ? integerFrom(env, "HANDS_RETENTION_MONTHS", 0, 1) : null,
      convertLegacy: (env.HANDS_CONVERSION ?? "on") !== "off",
    },
    tokenTtlSeconds: integerFrom(env, "TOKEN_TTL_SECONDS", 7 * 24 * 3600, 1),
    webSessionTtlSeconds: integerFrom(env, "WEB_SESSION_TTL_SECONDS", 7 * 24 * 3600, 60),
    tv: { actionMs: integerFrom(env, "TV_ACTION_MS", 1_000, 100), handsPerMatch: integerFrom(env, "TV_HANDS_PER_MATCH", 8, 1) },
    faucetAmount: integerFrom(env, "FAUCET_AMOUNT", 10_000, 1),
    faucetCooldownMs: integerFrom(env, "FAUCET_COOLDOWN_MS", 86_400_000),
    defaultBuyIn: integerFrom(env, "DEFAULT_BUY_IN", 1_000, 1),
    leaderboardMinMatches: integerFrom(env, "LEADERBOARD_MIN_MATCHES", 10),
    passwordMemoryCostKiB: integerFrom(env, "PASSWORD_MEMORY_COST_KIB", 65_536, 8),
    passwordTimeCost: integerFrom(env, "PASSWORD_TIME_COST", 2, 1),
    accountIdleMs: integerFrom(env, "ACCOUNT_IDLE_MS", 60_000, 1),
    maxBodyBytes: integerFrom(env, "MAX_BODY_BYTES", 64 * 1024, 1024),
    bodyTimeoutMs: integerFrom(env, "BODY_TIMEOUT_MS", 10_000, 100),
    databaseProbeTimeoutMs: integerFrom(env, "DATABASE_PROBE_TIMEOUT_MS", 3_000, 100),
    // One process alone keeps a stable name; cluster nodes get a random one so two never collide by accident.
    hostId: env.HOST_ID || (env.NATS_URL ? `node_${crypto.randomUUID().slice(0, 8)}` : "local"),
    timeBankMs: integerFrom(env, "TIME_BANK_MS", 10_000),
    timeBankRefillMs: integerFrom(env, "TIME_BANK_REFILL_MS", 500),
    timeBankCapMs: integerFrom(env, "TIME_BANK_CAP_MS", 10_000),
    authRateLimitPerMinute: integerFrom(env, "AUTH_RATE_LIMIT_PER_MINUTE", 30, 1),
    registrationsPerAddressPerDay: integerFrom(env, "REGISTRATIONS_PER_ADDRESS_PER_DAY", 20, 1),
    botListConcurrency: integerFrom(env, "BOT_LIST_CONCURRENCY", 256, 1),
    botMessagesPerSecond: integerFrom(env, "BOT_MESSAGES_PER_SECOND", 50, 1),
    statsCacheMs: integerFrom(env, "STATS_CACHE_MS", 1_000),
    ratingsPollMs: integerFrom(env, "RATINGS_POLL_MS", 1_000, 10),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    corsOrigins: !env.CORS_ORIGINS || env.CORS_ORIGINS.trim() === "*" ? "*" : env.CORS_ORIGINS.split(",").map((o) => o.trim().replace(/\/+$/, "")).filter(Boolean),
    acpc: {
      bindHost: env.ACPC_BIND_HOST || env.HOST || "127.0.0.1",
      publicHost: env.ACPC_PUBLIC_HOST || undefined,
      portTtlMs: integerFrom(env, "ACPC_PORT_TTL_MS", 60_000, 100),
    },
    mcp: {
      allowedOrigins: (env.MCP_ALLOWED_ORIGINS ?? "").split(",").map((o) => o.trim().replace(/\/+$/, "")).filter(Boolean),
      presenceMs: integerFrom(env, "AGENT_PRESENCE_MS", 150_000, 100),
      maxWaitMs: integerFrom(env, "MCP_MAX_WAIT_MS", 50_000, 100),
    },
    waitingTableTtlMs: integerFrom(env, "WAITING_TABLE_TTL_MS", 3_600_000, 100),
    maxBotsPerDeveloper: integerFrom(env, "MAX_BOTS_PER_DEVELOPER", 200, 1),
    maxOpenTablesPerDeveloper: integerFrom(env, "MAX_OPEN_TABLES_PER_DEVELOPER", 50, 1),
    competitionsTickMs: integerFrom(env, "COMPETITIONS_TICK_MS", 250, 10),
    sandboxMemoryMiB: integerFrom(env, "SANDBOX_MEMORY_MIB", defaultSandboxMemoryMiB(), 256),
    maxHostedSeatsPerDeveloper: integerFrom(env, "MAX_HOSTED_SEATS_PER_DEVELOPER", 16, 1),
    hostedUploadsPerMinute: integerFrom(env, "HOSTED_UPLOADS_PER_MINUTE", 6, 1),
    hostedVersionsPerBot: integerFrom(env, "HOSTED_VERSIONS_PER_BOT", 20, 2),
    spectatorsPerTable: integerFrom(env, "SPECTATORS_PER_TABLE", 500, 1),
    spectatorsPerAddress: integerFrom(env, "SPECTATORS_PER_ADDRESS", 20, 1),
    natsUrl: env.NATS_URL || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    logFormat: logFormatFrom(env.LOG_FORMAT || undefined, Boolean(process.stderr.isTTY)),
    logLevel: logLevelFrom(env.LOG_LEVEL),
    ladder: ladderFrom(env),
    tracing: env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, ""),
          serviceName: env.OTEL_SERVICE_NAME || "poker-bot-service",
          scheduleDelayMs: integerFrom(env, "OTEL_BSP_SCHEDULE_DELAY", 5_000, 1),
        }
      : null,
    clusterName: clusterNameFrom(env.CLUSTER_NAME || undefined, env.DATABASE_URL || undefined, env.PGLITE_DIR || "./data/pglite"),
  };
}

/** DECK_SEAL_KEY: 32 bytes as 64 hex digits or as base64 (44 characters). */
export function parseDeckSealKey(text: string): Buffer {
  const hex = /^[0-9a-fA-F]{64}$/.test(text);
  const key = Buffer.from(text, hex ? "hex" : "base64");
  if (key.length !== 32 || (!hex && key.toString("base64") !== text)) {
    throw new Error("DECK_SEAL_KEY must be 32 bytes: 64 hex digits or 44 characters of base64 (e.g. `openssl rand -hex 32`)");
  }
  return key;
}

export interface HandStorageSettings {
  /** HANDS_ARCHIVE_DIR: where months of hand histories are archived (zstd files the API still serves). */
  archiveDir: string | undefined;
  /** HANDS_RETENTION_MONTHS: months whose matches started longer ago are archived, then dropped from the database (null: keep all). */
  retentionMonths: number | null;
  /** HANDS_CONVERSION=off: this node does not convert hands stored as JSON before issue 35 (another node, or `bun run hands:convert`, does). */
  convertLegacy: boolean;
}

/** CLUSTER_NAME, or one derived from the database: letters, digits, `_` and `-` only (it prefixes NATS subjects). */
export function clusterNameFrom(explicit: string | undefined, databaseUrl: string | undefined, pgliteDir: string): string {
  if (explicit) {
    if (!/^[A-Za-z0-9_-]+$/.test(explicit)) throw new Error(`CLUSTER_NAME must be letters, digits, _ or -, got "${explicit}"`);
    return explicit;
  }
  const source = databaseUrl ?? `pglite:${pgliteDir}`;
  return `poker_${new Bun.CryptoHasher("sha256").update(source).digest("hex").slice(0, 12)}`;
}

export interface LadderSettings {
  buyIn: number;
  smallBlind: number;
  bigBlind: number;
  hands: number;
  actionTimeoutMs: number;
  /** Built-in strategies the house account enters in every format (empty: no house bots). */
  houseBots: BuiltInStrategy[];
  /** How often the matchmaker looks for pairings. */
  pairEveryMs: number;
  /** How long a free bot waits for an opponent it has not met too often before it takes one it has (docs/LADDER.md). */
  patienceMs: number;
  /** Chips one developer may win from the house's bots in 24 h before the house stops meeting its bots (0: no limit; docs/LADDER.md). */
  houseDailyLimit: number;
}

function ladderFrom(env: Record<string, string | undefined>): LadderSettings {
  const buyIn = integerFrom(env, "LADDER_BUY_IN", integerFrom(env, "DEFAULT_BUY_IN", 1_000, 1), 1);
  const houseBots = (env.LADDER_HOUSE_BOTS ?? BUILT_IN_STRATEGIES.join(",")).split(",").map((s) => s.trim()).filter(Boolean);
  for (const strategy of houseBots) {
    if (!(BUILT_IN_STRATEGIES as readonly string[]).includes(strategy)) throw new Error(`LADDER_HOUSE_BOTS: "${strategy}" is not a built-in (${BUILT_IN_STRATEGIES.join(", ")})`);
  }
  const settings = {
    buyIn,
    smallBlind: integerFrom(env, "LADDER_SMALL_BLIND", 5, 1),
    bigBlind: integerFrom(env, "LADDER_BIG_BLIND", 10, 1),
    hands: integerFrom(env, "LADDER_HANDS", 200, 1),
    actionTimeoutMs: integerFrom(env, "LADDER_ACTION_TIMEOUT_MS", TABLE_DEFAULTS.actionTimeoutMs, 1),
    houseBots: houseBots as BuiltInStrategy[],
    pairEveryMs: integerFrom(env, "LADDER_PAIR_EVERY_MS", 250, 10),
    patienceMs: integerFrom(env, "LADDER_PATIENCE_MS", 15_000),
    houseDailyLimit: integerFrom(env, "LADDER_HOUSE_DAILY_LIMIT", 2 * buyIn),
  };
  if (settings.smallBlind > settings.bigBlind || settings.bigBlind > settings.buyIn) throw new Error("LADDER_SMALL_BLIND ≤ LADDER_BIG_BLIND ≤ LADDER_BUY_IN");
  return settings;
}
