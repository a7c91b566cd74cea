import { eq } from "drizzle-orm";
import type { Db } from ".";
import { settings } from "./schema";

/**
 * Without JWT_SECRET (outside production) a random secret is generated once and kept in the
 * database, so tokens survive restarts. Two processes racing here agree: first insert wins.
 */
export async function ensureJwtSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const stored = () => db.select().from(settings).where(eq(settings.key, "jwt_secret"));
  // A restart reads it (no write); only the first start generates it.
  const existing = await stored();
  if (existing.length > 0) return existing[0].value;
  const generated = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
  await db.insert(settings).values({ key: "jwt_secret", value: generated }).onConflictDoNothing();
  return (await stored())[0].value;
}

/**
 * The key that seals deck secrets while matches run (match-host/deck-seal.ts): DECK_SEAL_KEY, or
 * outside production one generated once and kept here like the JWT secret, so every node (and a
 * restart) can unseal what another sealed. Kept here it protects nothing against a reader of the
 * database: production must give it (docs/FAIRNESS.md, "What sealing protects").
 */
export async function ensureDeckSealKey(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const stored = () => db.select().from(settings).where(eq(settings.key, "deck_seal_key"));
  const existing = await stored();
  if (existing.length > 0) return existing[0].value;
  const generated = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  await db.insert(settings).values({ key: "deck_seal_key", value: generated }).onConflictDoNothing();
  return (await stored())[0].value;
}
