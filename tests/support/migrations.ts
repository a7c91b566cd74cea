/** A database as an older version left it: the migrations up to one of them, applied with drizzle's own migrator. */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgresClient from "postgres";
import { MIGRATIONS_FOLDER } from "../../src/db/pglite-snapshot";
import { createTestDatabase } from "./db";

/** Applies the migrations whose tag sorts at or before `lastTag` ("0014_z": every 0014 one). */
export async function migrateUpTo(client: postgresClient.Sql, lastTag: string): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), `migrations-${lastTag}-`));
  try {
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"));
    journal.entries = journal.entries.filter((e: { tag: string }) => e.tag <= lastTag);
    mkdirSync(join(folder, "meta"));
    writeFileSync(join(folder, "meta/_journal.json"), JSON.stringify(journal));
    for (const e of journal.entries) copyFileSync(join(MIGRATIONS_FOLDER, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
    await migrate(drizzle(client), { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Applies every migration still to run. */
export async function migrateToLatest(client: postgresClient.Sql): Promise<void> {
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
}

/**
 * A migration test's scaffold: a database of its own, migrated up to `lastTag`, handed to `body` on
 * one connection, then closed and dropped whatever the body did.
 */
export async function withDatabaseMigratedUpTo(label: string, lastTag: string, body: (client: postgresClient.Sql) => Promise<void>): Promise<void> {
  const database = await createTestDatabase(label);
  const client = postgresClient(database.url, { max: 1, onnotice: () => {} });
  try {
    await migrateUpTo(client, lastTag);
    await body(client);
  } finally {
    await client.end();
    await database.drop();
  }
}
