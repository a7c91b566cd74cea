/**
 * Where hand histories are stored: compact chunks (hand_chunks, src/poker/hand-codec.ts), and the
 * JSON rows recorded before them (hands_legacy) until the conversion has moved them. Reads take
 * both, side by side, so a database is served the same before, during and after its conversion.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Queryable, type Tx } from "../../db/index";
import type { RecordedHands, StoredChunk } from "./recorded-hands";
import { archivedChunks } from "./hand-archive";

/** A chunk to write: a match's hands first … last, encoded. */
export interface ChunkRow extends StoredChunk {
  matchId: string;
}

/**
 * A chunk is closed (the next hand starts another) once it holds this many bytes: about a hundred
 * hands, so the row's own cost (tuple header, match id, index entry: ~110 bytes) is about a byte a
 * hand, and the row stays well under the size where Postgres compresses or moves it out of line.
 */
export const CHUNK_BYTES = 1_000;

/**
 * One statement for every chunk of a write: a chunk grows as its table plays, so the row is
 * written again with each flush (same key, more hands). A retry that finds a longer row keeps it.
 */
export function upsertChunks(tx: Tx, rows: ChunkRow[]): Promise<unknown> {
  return tx.execute(sql`insert into hand_chunks (match_id, first_number, last_number, data)
    select x.match_id, x.first_number, x.last_number, decode(x.data, 'base64')
    from unnest(${sql.param(rows.map((r) => r.matchId))}::text[], ${sql.param(rows.map((r) => r.first))}::int[],
      ${sql.param(rows.map((r) => r.last))}::int[], ${sql.param(rows.map((r) => Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length).toString("base64")))}::text[])
      as x(match_id, first_number, last_number, data)
    on conflict (match_id, first_number) do update set last_number = excluded.last_number, data = excluded.data
    where hand_chunks.last_number < excluded.last_number`);
}

const asBytes = (data: Uint8Array | string): Uint8Array => (typeof data === "string" ? Buffer.from(data.replace(/^\\x/, ""), "hex") : data);

/**
 * The chunks holding hands numbered above `after`, in order, until they hold `atLeast` hands (or
 * there are no more). Hand numbers are dense (only voided numbers are missing), so the chunks that
 * begin by `after + atLeast` usually cover the page in one query; a gap is filled by the next.
 */
async function chunksAfter(db: Queryable, matchId: string, after: number, atLeast: number): Promise<StoredChunk[]> {
  const chunks: StoredChunk[] = [];
  let covered = 0;
  for (let from = after; covered < atLeast; ) {
    const rows = await queryRows<{ first_number: number; last_number: number; data: Uint8Array | string }>(
      db,
      sql`select first_number, last_number, data from hand_chunks where match_id = ${matchId} and last_number > ${from}
          and first_number <= ${from + Math.max(1, atLeast - covered)} order by first_number`,
    );
    if (rows.length === 0) {
      // Nothing begins within reach: a gap of voided numbers, or the end. One look further decides.
      const [next] = await queryRows<{ first_number: number }>(db, sql`select first_number from hand_chunks where match_id = ${matchId} and first_number > ${from} order by first_number limit 1`);
      if (!next) break;
      from = next.first_number - 1;
      continue;
    }
    for (const row of rows) {
      chunks.push({ first: row.first_number, last: row.last_number, bytes: asBytes(row.data) });
      covered += row.last_number - Math.max(row.first_number - 1, from);
      from = row.last_number;
    }
  }
  return chunks;
}

/**
 * What the database holds of a match's hands numbered above `after`: enough for `limit` of them
 * (all by default). When it holds none of them and `archiveDir` is given, the match's archived
 * month is read instead (hand-archive.ts).
 */
export async function recordedHands(db: Queryable, matchId: string, after = 0, limit = Number.POSITIVE_INFINITY, archiveDir?: string): Promise<RecordedHands> {
  const bounded = Number.isFinite(limit);
  // Both forms in one statement, so in one snapshot: a conversion committing meanwhile is seen whole or not at all.
  const rows = await queryRows<{ kind: string; first_number: number; last_number: number; data: Uint8Array | string | null; json: string | null }>(
    db,
    sql`(select 'chunk' as kind, first_number, last_number, data, null::text as json from hand_chunks
          where match_id = ${matchId} and last_number > ${after}${bounded ? sql` and first_number <= ${after + limit}` : sql``} order by first_number)
        union all
        (select 'json', number, number, null::bytea, history::text from hands_legacy
          where match_id = ${matchId} and number > ${after} order by number${bounded ? sql` limit ${limit}` : sql``})`,
  );
  const chunks: StoredChunk[] = [];
  const legacy: RecordedHands["legacy"] = [];
  for (const row of rows) {
    if (row.kind === "chunk") chunks.push({ first: row.first_number, last: row.last_number, bytes: asBytes(row.data!) });
    else legacy.push({ number: row.first_number, json: row.json! });
  }
  if (bounded) {
    // Voided numbers inside the page: the chunks past them (a hand converted meanwhile may then come in both forms; decodeRecorded keeps one).
    const covered = chunks.reduce((sum, c) => sum + c.last - Math.max(c.first - 1, after), 0);
    if (covered < limit) chunks.push(...(await chunksAfter(db, matchId, chunks.at(-1)?.last ?? after, limit - covered)));
  }
  if (chunks.length === 0 && legacy.length === 0 && archiveDir !== undefined) {
    return { chunks: archivedChunks(archiveDir, matchId).filter((chunk) => chunk.last > after), legacy: [] };
  }
  return { chunks, legacy };
}

/** Up to `count` hand numbers recorded above `after`, in order (a page's bounds, without its hands). */
export async function recordedNumbers(db: Queryable, matchId: string, after: number, count: number): Promise<number[]> {
  // One statement, one snapshot (as recordedHands).
  const rows = await queryRows<{ first_number: number; last_number: number }>(
    db,
    sql`(select first_number, last_number from hand_chunks where match_id = ${matchId} and last_number > ${after} order by first_number)
        union all
        (select number, number from hands_legacy where match_id = ${matchId} and number > ${after} order by number limit ${count})`,
  );
  const numbers = new Set<number>();
  for (const { first_number, last_number } of rows.sort((a, b) => a.first_number - b.first_number)) {
    for (let n = Math.max(first_number, after + 1); n <= last_number && numbers.size < count; n++) numbers.add(n);
  }
  return [...numbers].sort((a, b) => a - b);
}

/** Hands recorded per match: what a table another process hosts (or hosted) has played. */
export async function handsRecordedOf(db: Queryable, matchIds: string[]): Promise<Map<string, number>> {
  if (matchIds.length === 0) return new Map();
  const rows = await queryRows<{ match_id: string; n: number }>(
    db,
    sql`select match_id, sum(n)::int as n from (
          select match_id, last_number - first_number + 1 as n from hand_chunks where match_id = any(${sql.param(matchIds)}::text[])
          union all select match_id, 1 from hands_legacy where match_id = any(${sql.param(matchIds)}::text[])) x
        group by match_id`,
  );
  return new Map(rows.map((r) => [r.match_id, Number(r.n)]));
}
