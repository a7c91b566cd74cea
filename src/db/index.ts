import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { lockDirectory } from "./directory-lock";
import { createPgliteDirectory, isFreshDirectory, MIGRATIONS_FOLDER } from "./pglite-snapshot";
import { noteRetry } from "./retry";
import * as schema from "./schema";

/** One Drizzle type for both drivers: everything above this file is driver-agnostic. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything that can run a query: the database or an open transaction. */
export type Queryable = Db | Tx;

export interface Database {
  db: Db;
  kind: "postgres" | "pglite";
  close(): Promise<void>;
}

/** Arbitrary but fixed: every process of this service takes the same lock to migrate. */
const MIGRATION_LOCK_KEY = 727_274_001;

export interface DatabaseOptions {
  databaseUrl?: string;
  pgliteDir?: string;
  /** Pool size for postgres.js. */
  maxConnections?: number;
  /**
   * A serving node's HOST_ID: its sessions are named after it (so a node taking its tables over
   * can end them: a paused node may hold locks mid-statement) and Postgres ends its transactions
   * left idle for 5 s.
   */
  servingHost?: string;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.maxConnections ?? 10, options.servingHost);
  return openPglite(options.pgliteDir ?? "./data/pglite");
}

async function openPostgres(url: string, maxConnections: number, servingHost: string | undefined): Promise<Database> {
  await migratePostgresUnderLock(url);
  const connection = servingHost ? { idle_in_transaction_session_timeout: 5_000, application_name: sessionNameOf(servingHost) } : {};
  const client = postgres(url, { max: maxConnections, onnotice: () => {}, connection });
  preparedByDefault(client);
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return { db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
}

/** The Postgres application_name of a serving node's sessions. */
export function sessionNameOf(hostId: string): string {
  return `poker node ${hostId}`.slice(0, 63);
}

/**
 * Drizzle sends every query it did not name unprepared: postgres.js then describes it first, one
 * more round trip each time, and Postgres parses and plans it anew (measured 3× slower here, and
 * in a transaction every statement paid it). Our SQL comes in a bounded number of shapes (batch
 * writes take their rows as a few json, array or text parameters, never a growing VALUES list), so postgres.js may keep each one
 * prepared per connection: on the pool and in every transaction and savepoint it opens. Should
 * some text vary after all, the first MAX_PREPARED_SHAPES texts stay prepared and later ones are
 * sent unprepared, so neither postgres.js's cache nor the server's memory grows without bound.
 */
const MAX_PREPARED_SHAPES = 1_000;

function preparedByDefault<T extends postgres.Sql | postgres.TransactionSql>(sql: T, shapes = new Set<string>()): T {
  const unsafe = sql.unsafe.bind(sql);
  sql.unsafe = ((query: string, params?: unknown[], options?: object) => {
    if (shapes.size < MAX_PREPARED_SHAPES) shapes.add(query);
    return unsafe(query, params as never, { ...options, prepare: shapes.has(query) });
  }) as typeof sql.unsafe;
  for (const opener of ["begin", "savepoint"] as const) {
    if (!(opener in sql)) continue;
    const open = (sql as unknown as Record<string, (...args: unknown[]) => unknown>)[opener].bind(sql);
    (sql as unknown as Record<string, unknown>)[opener] = (...args: unknown[]) => {
      const body = args.pop() as (tx: postgres.TransactionSql) => unknown;
      return open(...args, (tx: postgres.TransactionSql) => body(preparedByDefault(tx, shapes)));
    };
  }
  return sql;
}

/** Two processes starting together must not both run the migrations: a session advisory lock. */
async function migratePostgresUnderLock(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migratePostgres(drizzlePostgres(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

async function openPglite(dir: string): Promise<Database> {
  const inMemory = dir.startsWith("memory://");
  // Before anything is read: a second process refuses here, touching nothing.
  const unlock = inMemory ? () => {} : lockDirectory(dir);
  try {
    // A first start takes a ready copy of the pre-migrated snapshot built at install, instead of running initdb.
    if (!inMemory && isFreshDirectory(dir)) await createPgliteDirectory(dir);
    const client = new PGlite(inMemory ? undefined : dir);
    await client.waitReady;
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    await migratePglite(db as any, { migrationsFolder: MIGRATIONS_FOLDER });
    return { db, kind: "pglite", close: () => client.close().finally(unlock) };
  } catch (error) {
    unlock();
    throw error;
  }
}

/**
 * `column = any($1)`: one array parameter instead of one parameter per value, so the statement
 * keeps one shape (and stays prepared) however many values there are.
 */
export function anyOf(column: AnyColumn, values: string[]): SQL {
  return sql`${column} = any(${sql.param(values)}::text[])`;
}

/** The same for a bigint key (seats.seq). */
export function anyKeyOf(column: AnyColumn, values: number[]): SQL {
  return sql`${column} = any(${sql.param(values)}::bigint[])`;
}

/** The driver's database error, wherever it sits in the chain of causes (Drizzle wraps it). */
type DatabaseError = { code?: unknown; constraint?: unknown; constraint_name?: unknown; cause?: unknown };

function someCause(error: unknown, test: (e: DatabaseError) => boolean): boolean {
  for (let e = error as DatabaseError | undefined; e; e = e.cause as DatabaseError | undefined) if (test(e)) return true;
  return false;
}

/** Whether a database error carries this SQLSTATE (e.g. 57014, a cancelled statement), wherever it sits in the chain of causes. */
export function hasDatabaseCode(error: unknown, code: string): boolean {
  return someCause(error, (e) => e.code === code);
}

/** Whether a database error is a violation of the named constraint (postgres.js or PGlite). */
export function violatesConstraint(error: unknown, constraint: string): boolean {
  return someCause(error, (e) => e.constraint === constraint || e.constraint_name === constraint);
}

/** Rows of a raw query, whichever driver ran it (postgres.js answers an array, PGlite `{ rows }`). */
export async function queryRows<T>(db: Queryable, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

export { schema };

/**
 * A statement on the hot path (every buy-in, every leave): Drizzle flattens its template once,
 * with `sql.placeholder(name)` for the values, and each run binds new values to the same text,
 * as Drizzle's own `.prepare()` does for its query builders. Flattening the template on every
 * call took about a tenth of the server's CPU under ledger load.
 */
export function hotStatement<Row>(template: SQL): (db: Queryable, values: Record<string, unknown>) => Promise<Row[]> {
  let built: { sql: string; params: unknown[] } | undefined;
  return async (db, values) => {
    built ??= (db as unknown as { dialect: { sqlToQuery(sql: SQL): { sql: string; params: unknown[] } } }).dialect.sqlToQuery(template);
    const result = (await db._.session.prepareQuery(built, undefined, undefined, false).execute(values)) as unknown as Row[] | { rows: Row[] };
    return Array.isArray(result) ? result : result.rows;
  };
}
