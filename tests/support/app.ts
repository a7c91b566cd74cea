import { afterAll, beforeAll, expect } from "bun:test";
import { createApp, type App } from "../../src/app";
import { loadConfig, type Config } from "../../src/config";
import { openDatabase, type Database } from "../../src/db";
import { ManualClock } from "../../src/lib/clock";
import { auditLedger } from "../../src/modules/credits/audit";
import { createTestDatabase, type TestDatabase } from "./db";
import { fundedDeveloper, registeredDeveloper, uniqueEmail } from "./developers";

/** Cheap argon2id for tests (the production default is 64 MiB). */
export const TEST_ENV = { PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1", AUTH_RATE_LIMIT_PER_MINUTE: "100000", REGISTRATIONS_PER_ADDRESS_PER_DAY: "100000" };

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...TEST_ENV, ...overrides });
}

export interface Harness {
  app: App;
  clock: ManualClock;
  database: Database;
  config: Config;
  call(method: string, path: string, options?: { body?: unknown; token?: string; rawBody?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  registerDeveloper(email?: string): Promise<{ developerId: string; token: string }>;
  /** A developer registered (201) and granted the faucet's credits (200): support/developers.ts. */
  fundedDeveloper(email?: string): Promise<{ developerId: string; token: string }>;
  expectAuditClean(): Promise<void>;
  close(): Promise<void>;
}

/** The password of every developer a harness registers. */
export const HARNESS_PASSWORD = "correct horse battery";

export function harnessFor(app: App, database: Database, clock: ManualClock, config: Config): Omit<Harness, "close"> {
  const call: Harness["call"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    app,
    clock,
    database,
    config,
    call,
    async registerDeveloper(email = uniqueEmail()) {
      const { developerId, token } = await registeredDeveloper(call, { email, password: HARNESS_PASSWORD });
      return { developerId, token };
    },
    async fundedDeveloper(email = uniqueEmail()) {
      const { developerId, token } = await fundedDeveloper(call, { email, password: HARNESS_PASSWORD });
      return { developerId, token };
    },
    async expectAuditClean() {
      const report = await auditLedger(database.db);
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
    },
  };
}

/** An app on its own fresh Postgres database, with a manual clock. */
export async function createHarness(label: string, env: Record<string, string> = {}): Promise<Harness & { testDb: TestDatabase }> {
  const testDb = await createTestDatabase(label);
  const config = testConfig({ DATABASE_URL: testDb.url, ...env });
  const database = await openDatabase({ databaseUrl: testDb.url });
  const clock = new ManualClock();
  const app = createApp({ db: database.db, dbKind: database.kind, config, jwtSecret: "test-secret", clock, log: () => {} });
  return {
    ...harnessFor(app, database, clock, config),
    testDb,
    async close() {
      await app.services.host.shutdown();
      await app.services.ratingsApplier.stop();
      await app.services.accounts.stopAll();
      await app.services.sandbox.close();
      await database.close();
      await testDb.drop();
    },
  };
}

/**
 * The harness of a test file (or describe block): created in beforeAll, closed in afterAll.
 * Read it only inside tests and hooks; `beforeClose` runs before it closes (afterAll hooks run
 * in the order they were registered, and this one is registered first).
 */
export function useHarness(
  label: string,
  env: Record<string, string> = {},
  options: { beforeClose?: (harness: Harness & { testDb: TestDatabase }) => Promise<void> | void } = {},
): Harness & { testDb: TestDatabase } {
  let harness: (Harness & { testDb: TestDatabase }) | undefined;
  beforeAll(async () => {
    harness = await createHarness(label, env);
  });
  afterAll(async () => {
    if (!harness) return;
    try {
      await options.beforeClose?.(harness);
    } finally {
      await harness.close();
    }
  });
  return new Proxy({} as Harness & { testDb: TestDatabase }, {
    get(_, property) {
      if (!harness) throw new Error(`useHarness("${label}"): read before its beforeAll ran (use it inside tests and hooks)`);
      return Reflect.get(harness, property);
    },
  });
}
