import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
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

const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));
/** Arbitrary but fixed: every process of this service takes the same lock to migrate. */
const MIGRATION_LOCK_KEY = 727_274_001;

export interface DatabaseOptions {
  databaseUrl?: string;
  pgliteDir?: string;
  /** Pool size for postgres.js. */
  maxConnections?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.maxConnections ?? 10);
  return openPglite(options.pgliteDir ?? "./data/pglite");
}

async function openPostgres(url: string, maxConnections: number): Promise<Database> {
  await migratePostgresUnderLock(url);
  const client = postgres(url, { max: maxConnections, onnotice: () => {} });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return { db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
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
  if (!inMemory) mkdirSync(dir, { recursive: true });
  const client = new PGlite(inMemory ? undefined : dir);
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(db as any, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db, kind: "pglite", close: () => client.close() };
}

export { schema };
