/** Shared by the hosted-play tests: a version of a bot's code stored as an upload would store it. */
import { createHash } from "node:crypto";
import type { Queryable } from "../../src/db";
import { botCodeVersions } from "../../src/db/schema";

export const STARTER_BOT = new URL("../../examples/starter-bot.ts", import.meta.url).pathname;

/** Stores `bundled` as version `version` of the bot (the upload route's row, without the route). */
export async function storeVersion(db: Queryable, botId: string, version: number, bundled: string, source = "// test fixture"): Promise<void> {
  await db.insert(botCodeVersions).values({
    botId,
    version,
    sha256: createHash("sha256").update(source).digest("hex"),
    bytes: Buffer.byteLength(source),
    language: "ts",
    source,
    bundled,
    createdAt: new Date(),
  });
}
