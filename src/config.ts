/** Runtime configuration from the environment (SPEC §1). Defaults equal the brief's constants. */
export interface Config {
  port: number;
  databaseUrl: string | undefined;
  pgliteDir: string;
  nodeEnv: string;
  jwtSecret: string | undefined;
  tokenTtlSeconds: number;
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
  /** Names this process among those sharing a database; a restart recovers its own tables. */
  hostId: string;
  /** Remote bots: extra time beyond actionTimeoutMs, refilled per answered action up to the cap. */
  timeBankMs: number;
  timeBankRefillMs: number;
  timeBankCapMs: number;
  /** Register and login attempts per client IP per minute. */
  authRateLimitPerMinute: number;
  /** Messages a bot may send per second on its socket (bursts up to this many). */
  botMessagesPerSecond: number;
  /** How long GET /api/stats/:botId may serve a bot's statistics from memory (0: never). */
  statsCacheMs: number;
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

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? "development";
  const jwtSecret = env.JWT_SECRET || undefined;
  if (nodeEnv === "production" && !jwtSecret) {
    throw new Error("JWT_SECRET is required when NODE_ENV=production");
  }
  return {
    port: integerFrom(env, "PORT", 3000),
    databaseUrl: env.DATABASE_URL || undefined,
    pgliteDir: env.PGLITE_DIR || "./data/pglite",
    nodeEnv,
    jwtSecret,
    tokenTtlSeconds: integerFrom(env, "TOKEN_TTL_SECONDS", 7 * 24 * 3600, 1),
    faucetAmount: integerFrom(env, "FAUCET_AMOUNT", 10_000, 1),
    faucetCooldownMs: integerFrom(env, "FAUCET_COOLDOWN_MS", 86_400_000),
    defaultBuyIn: integerFrom(env, "DEFAULT_BUY_IN", 1_000, 1),
    leaderboardMinMatches: integerFrom(env, "LEADERBOARD_MIN_MATCHES", 10),
    passwordMemoryCostKiB: integerFrom(env, "PASSWORD_MEMORY_COST_KIB", 65_536, 8),
    passwordTimeCost: integerFrom(env, "PASSWORD_TIME_COST", 2, 1),
    accountIdleMs: integerFrom(env, "ACCOUNT_IDLE_MS", 60_000, 1),
    maxBodyBytes: integerFrom(env, "MAX_BODY_BYTES", 64 * 1024, 1024),
    hostId: env.HOST_ID || "local",
    timeBankMs: integerFrom(env, "TIME_BANK_MS", 10_000),
    timeBankRefillMs: integerFrom(env, "TIME_BANK_REFILL_MS", 500),
    timeBankCapMs: integerFrom(env, "TIME_BANK_CAP_MS", 10_000),
    authRateLimitPerMinute: integerFrom(env, "AUTH_RATE_LIMIT_PER_MINUTE", 30, 1),
    botMessagesPerSecond: integerFrom(env, "BOT_MESSAGES_PER_SECOND", 50, 1),
    statsCacheMs: integerFrom(env, "STATS_CACHE_MS", 1_000),
  };
}
