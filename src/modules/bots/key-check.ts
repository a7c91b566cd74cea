import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db";

/** Is the key a bot's socket was opened with still its key (not rotated, the bot not retired)? */
export type KeyCheck = (botId: string, keyHash: string) => Promise<boolean>;

/**
 * Checks keys against the database, whatever the bus says: a rotation or a retirement made on any
 * node, during a NATS outage too, is seen at the next check. The checks asked for in one turn of
 * the event loop go as one statement (a node relaying hundreds of tables asks hundreds a second).
 */
export function databaseKeyCheck(db: Queryable): KeyCheck {
  let batch: Map<string, Array<{ keyHash: string; resolve: (valid: boolean) => void; reject: (error: unknown) => void }>> | null = null;
  const run = async (asked: NonNullable<typeof batch>) => {
    try {
      const rows = await queryRows<{ id: string; api_key_hash: string }>(
        db,
        sql`select id, api_key_hash from bots where id = any(${sql.param([...asked.keys()])}::text[]) and retired_at is null`,
      );
      const current = new Map(rows.map((row) => [row.id, row.api_key_hash]));
      for (const [botId, waiting] of asked) for (const w of waiting) w.resolve(current.get(botId) === w.keyHash);
    } catch (error) {
      for (const waiting of asked.values()) for (const w of waiting) w.reject(error);
    }
  };
  return (botId, keyHash) =>
    new Promise<boolean>((resolve, reject) => {
      if (!batch) {
        const asked = (batch = new Map());
        setImmediate(() => {
          batch = null;
          void run(asked);
        });
      }
      const waiting = batch.get(botId) ?? [];
      waiting.push({ keyHash, resolve, reject });
      batch.set(botId, waiting);
    });
}
