import { eq } from "drizzle-orm";
import type { Db } from ".";
import { settings } from "./schema";

/**
 * Without JWT_SECRET (outside production) a random secret is generated once and kept in the
 * database, so tokens survive restarts. Two processes racing here agree: first insert wins.
 */
export async function ensureJwtSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const generated = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
  await db.insert(settings).values({ key: "jwt_secret", value: generated }).onConflictDoNothing();
  const rows = await db.select().from(settings).where(eq(settings.key, "jwt_secret"));
  return rows[0].value;
}
