import { eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";
import { bots } from "../../db/schema";
import { HOUSE_EMAIL } from "./house";
import { ascending, cursorRow, idCursor, keysetPage, pastKeys, sortedBy } from "../../lib/paging";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

interface Entry {
  botId: string;
  json: string;
}

const entryOf = (row: { id: string; name: string; description: string; createdAt: Date; house: boolean }): Entry => ({
  botId: row.id,
  json: JSON.stringify({ botId: row.id, name: row.name, description: row.description, createdAt: row.createdAt.toISOString(), house: row.house }),
});

const encoder = new TextEncoder();
/** Whether a row is one of the ladder house's bots: its owner's id against the house's, looked up once per statement (an InitPlan). */
const IS_HOUSE = sql<boolean>`coalesce(${bots.developerId} = (select id from developers where email = ${HOUSE_EMAIL}), false)`.mapWith(Boolean);
const COLUMNS = { id: bots.id, name: bots.name, description: bots.description, createdAt: bots.createdAt, house: IS_HOUSE };
/** Oldest first, ties by id: a range of bots_created_idx. The owner's list (`/api/me/bots`) pages the same way. */
export const OLDEST_FIRST = [ascending(bots.createdAt), ascending(bots.id)];

/** A page of the list: its JSON text, and the botId to continue after when more exist. */
export interface BotPage {
  json: Uint8Array;
  count: number;
  etag: string;
  next: string | null;
}

export type ListEncoding = "br" | "gzip" | "identity";

/** One version of the whole list, shared by every request for it until a bot is added. */
export interface WholeList {
  count: number;
  etag: string;
  /** The body in this encoding, compressed once per version on the thread pool, never on the event loop. */
  body(encoding: ListEncoding): Promise<Blob>;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * One version of the list. Its bodies are Blobs: a Response made from a Blob shares its bytes,
 * where one made from a Uint8Array copies them (200 parallel requests of a 26 MB list were 5 GB).
 */
function wholeList(entries: Entry[]): WholeList {
  const raw = encoder.encode(`[${entries.map((e) => e.json).join(",")}]`);
  const identity = Promise.resolve(new Blob([raw]));
  const packed: Partial<Record<ListEncoding, Promise<Blob>>> = { identity };
  const compress = (encoding: ListEncoding) =>
    (encoding === "br" ? brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength } }) : gzipAsync(raw)).then((bytes) => new Blob([bytes]));
  return {
    count: entries.length,
    etag: `"bots-${entries.length}-${entries.at(-1)?.botId ?? "none"}"`,
    body: (encoding) => (packed[encoding] ??= compress(encoding)),
  };
}

/**
 * GET /api/bots: the brief's array of every registered bot, oldest first, kept cheap at 100k
 * rows. Bots are only ever added (a retirement changes none of the four fields listed), so this
 * node keeps the list and, per request, reads only what was added since (an index range) plus a
 * count; a count that does not add up (a bot committed late by another node, out of order)
 * rebuilds the list. That check is what keeps every node of a cluster current, with no message
 * between them. Concurrent requests share one check, and one body per version. Pages (`limit`,
 * `after`) read the index directly.
 */
export class BotDirectory {
  private entries: Entry[] = [];
  private current: WholeList = wholeList([]);
  /** Bumped by a bot created here: a request after it never joins a check that began before. */
  private generation = 0;
  private checking: { generation: number; done: Promise<WholeList> } | null = null;

  constructor(private readonly db: Db) {}

  /** A bot was created through this node. */
  added(): void {
    this.generation += 1;
  }

  all(): Promise<WholeList> {
    if (this.checking?.generation === this.generation) return this.checking.done;
    const done = this.check().finally(() => {
      if (this.checking?.done === done) this.checking = null;
    });
    this.checking = { generation: this.generation, done };
    return done;
  }

  private async check(): Promise<WholeList> {
    const [{ count }] = await queryRows<{ count: number }>(this.db, sql`select count(*)::int as count from bots`);
    const last = this.entries.at(-1);
    const added = last ? await this.db.select(COLUMNS).from(bots).where(addedAfter(last.botId)).orderBy(...sortedBy(OLDEST_FIRST)) : [];
    if (this.entries.length + added.length === count && (last || count === 0)) {
      if (added.length === 0) return this.current;
      this.entries.push(...added.map(entryOf));
    } else {
      this.entries = (await this.db.select(COLUMNS).from(bots).orderBy(...sortedBy(OLDEST_FIRST))).map(entryOf);
    }
    this.current = wholeList(this.entries);
    return this.current;
  }

  async page(limit: number, afterBotId: string | undefined, offset = 0): Promise<BotPage> {
    const after = await idCursor(this.db, bots, OLDEST_FIRST, { id: afterBotId, field: "after", unknown: "Invalid after: no bot with this id" });
    const found = await keysetPage(this.db.select(COLUMNS).from(bots).$dynamic(), { order: OLDEST_FIRST, limit, offset, after }, (last) => last.id);
    const shown = found.items.map(entryOf);
    return { json: encoder.encode(`[${shown.map((e) => e.json).join(",")}]`), count: shown.length, etag: `"bots-page-${Bun.hash(shown.map((e) => e.json).join()).toString(36)}"`, next: found.next };
  }
}

/** Rows after the bot `botId` in the list's order (created_at, id): a range of bots_created_idx. Compared in SQL, at the database's own precision. */
function addedAfter(botId: string) {
  return pastKeys(OLDEST_FIRST, cursorRow(bots, OLDEST_FIRST, eq(bots.id, botId)));
}
