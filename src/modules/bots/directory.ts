import { asc, eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { bots } from "../../db/schema";
import { errors } from "../../lib/errors";

interface Entry {
  botId: string;
  json: string;
}

const entryOf = (row: { id: string; name: string; description: string; createdAt: Date }): Entry => ({
  botId: row.id,
  json: JSON.stringify({ botId: row.id, name: row.name, description: row.description, createdAt: row.createdAt.toISOString() }),
});

const encoder = new TextEncoder();
const COLUMNS = { id: bots.id, name: bots.name, description: bots.description, createdAt: bots.createdAt };
const ORDER = [asc(bots.createdAt), asc(bots.id)];

/** A page of the list: its JSON text, and the botId to continue after when more exist. */
export interface BotPage {
  /** UTF-8 JSON: the whole list is encoded once and served as is until it changes. */
  json: Uint8Array;
  count: number;
  etag: string;
  next: string | null;
}

/**
 * GET /api/bots: the brief's array of every registered bot, oldest first, kept cheap at 100k
 * rows. Bots are only ever added, so this node keeps the list's JSON and, per request, reads only
 * what was added since (an index range) plus a count; a count that does not add up (a bot
 * committed late by another node, out of order) rebuilds the list. Pages (`limit`, `after`) read
 * the index directly.
 */
export class BotDirectory {
  private entries: Entry[] = [];
  private body: Uint8Array | null = null;

  constructor(private readonly db: Db) {}

  async all(): Promise<BotPage> {
    const [{ count }] = await queryRows<{ count: number }>(this.db, sql`select count(*)::int as count from bots`);
    const last = this.entries.at(-1);
    const added = last ? await this.db.select(COLUMNS).from(bots).where(after(last.botId)).orderBy(...ORDER) : [];
    if (this.entries.length + added.length === count && (last || count === 0)) {
      if (added.length > 0) {
        this.entries.push(...added.map(entryOf));
        this.body = null;
      }
    } else {
      this.entries = (await this.db.select(COLUMNS).from(bots).orderBy(...ORDER)).map(entryOf);
      this.body = null;
    }
    this.body ??= encoder.encode(`[${this.entries.map((e) => e.json).join(",")}]`);
    return { json: this.body, count: this.entries.length, etag: `"bots-${this.entries.length}-${this.entries.at(-1)?.botId ?? "none"}"`, next: null };
  }

  async page(limit: number, afterBotId: string | undefined, offset = 0): Promise<BotPage> {
    if (afterBotId !== undefined) {
      const [known] = await this.db.select({ id: bots.id }).from(bots).where(eq(bots.id, afterBotId));
      if (!known) throw errors.validation("Invalid after: no bot with this id", { field: "after" });
    }
    const rows = await this.db
      .select(COLUMNS)
      .from(bots)
      .where(afterBotId !== undefined ? after(afterBotId) : undefined)
      .orderBy(...ORDER)
      .limit(limit + 1)
      .offset(offset);
    const shown = rows.slice(0, limit).map(entryOf);
    const next = rows.length > limit ? shown.at(-1)!.botId : null;
    return { json: encoder.encode(`[${shown.map((e) => e.json).join(",")}]`), count: shown.length, etag: `"bots-page-${Bun.hash(shown.map((e) => e.json).join()).toString(36)}"`, next };
  }
}

/** Rows after the bot `botId` in the list's order (created_at, id): a range of bots_created_idx. Compared in SQL, at the database's own precision. */
function after(botId: string) {
  return sql`(${bots.createdAt}, ${bots.id}) > (select b.created_at, b.id from bots b where b.id = ${botId})`;
}
