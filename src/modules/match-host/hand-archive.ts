/**
 * Old months of hand histories leave the database for compressed files (issue 35): a month's
 * partition of hand_chunks becomes `hands-YYYY_MM.zst` (one zstd frame per match: its chunks as
 * they were stored) and `hands-YYYY_MM.index.json.zst` (where each match's frame is), written,
 * read back and compared with the rows, and only then is the partition detached and dropped. The
 * API still serves an archived match (hand-store.ts reads its frame when the database holds none
 * of its hands), and an operator can put a month back (`bun run hands:archive -- --restore`).
 * Files are written next to each other in HANDS_ARCHIVE_DIR: a local disk, or a bucket mounted
 * there (docs/SCALING.md, "Hand storage").
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, openSync, fsyncSync, closeSync, readSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/index";
import { invariant } from "../../lib/assert";
import { digitsValue } from "../../lib/ids";
import type { StoredChunk } from "./recorded-hands";

const ARCHIVE_FORMAT = 1;

export interface ArchiveIndex {
  format: number;
  month: string;
  /** Match id → [offset, length] of its frame in the data file, and its hand count. */
  matches: Record<string, [number, number, number]>;
}

/** `YYYY_MM` (UTC) of the month a match id was made in (src/lib/ids.ts), null for another shape of id. */
export function monthOfMatchId(matchId: string): string | null {
  const body = /^m_([0-9a-hjkmnp-tv-z]{10})/.exec(matchId)?.[1];
  if (!body) return null;
  return new Date(digitsValue(body)).toISOString().slice(0, 7).replace("-", "_");
}

const dataFile = (dir: string, month: string) => join(dir, `hands-${month}.zst`);
const indexFile = (dir: string, month: string) => join(dir, `hands-${month}.index.json.zst`);

function varint(out: number[], value: number): void {
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
}

/** A match's chunks as one frame: (first, last, length, bytes) each, varints. */
function frameOf(chunks: StoredChunk[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const chunk of chunks) {
    const head: number[] = [];
    varint(head, chunk.first);
    varint(head, chunk.last);
    varint(head, chunk.bytes.length);
    parts.push(new Uint8Array(head), chunk.bytes);
  }
  return Bun.zstdCompressSync(Buffer.concat(parts), { level: 19 });
}

function chunksOfFrame(frame: Uint8Array): StoredChunk[] {
  const bytes = new Uint8Array(Bun.zstdDecompressSync(frame));
  const chunks: StoredChunk[] = [];
  let at = 0;
  const read = () => {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const b = bytes[at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const first = read(), last = read(), length = read();
    chunks.push({ first, last, bytes: bytes.slice(at, at + length) });
    at += length;
  }
  return chunks;
}

function writeDurably(path: string, data: Uint8Array): void {
  writeFileSync(`${path}.tmp`, data);
  const fd = openSync(`${path}.tmp`, "r");
  fsyncSync(fd);
  closeSync(fd);
  renameSync(`${path}.tmp`, path);
}

const indexes = new Map<string, ArchiveIndex | null>();

/** The index of a month's archive (cached per process), null when there is none. */
function indexOf(dir: string, month: string): ArchiveIndex | null {
  const key = indexFile(dir, month);
  if (!indexes.has(key)) indexes.set(key, existsSync(key) ? (JSON.parse(Buffer.from(Bun.zstdDecompressSync(readFileSync(key))).toString()) as ArchiveIndex) : null);
  return indexes.get(key)!;
}

/** An archived match's chunks (empty when its month is not archived or it has no hands there). */
export function archivedChunks(dir: string, matchId: string): StoredChunk[] {
  const month = monthOfMatchId(matchId);
  const entry = month ? indexOf(dir, month)?.matches[matchId] : undefined;
  if (!month || !entry) return [];
  const [offset, length] = entry;
  const frame = Buffer.alloc(length);
  const fd = openSync(dataFile(dir, month), "r");
  try {
    readSync(fd, frame, 0, length, offset);
  } finally {
    closeSync(fd);
  }
  return chunksOfFrame(frame);
}

/** The monthly partitions whose month ended more than `retentionMonths` months before `now`. */
export async function partitionsPastRetention(db: Db, now: Date, retentionMonths: number): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        where p.relname = 'hand_chunks' and c.relname ~ '^hand_chunks_[0-9]{4}_[0-9]{2}$' order by 1`,
  );
  const cutoff = `${new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - retentionMonths, 1)).toISOString().slice(0, 7).replace("-", "_")}`;
  // A month is past retention when it ended before the first of (now - retention) months: its name sorts below the cutoff month.
  return rows.map((row) => row.name).filter((name) => name.slice("hand_chunks_".length) < cutoff);
}

/**
 * Archives one month's partition to `dir`, verifies the files against the rows, then detaches and
 * drops the partition. Refuses while a match of that month still runs. Returns what it archived.
 */
export async function archivePartition(db: Db, dir: string, month: string): Promise<{ matches: number; hands: number; bytes: number }> {
  invariant(/^\d{4}_\d{2}$/.test(month), `month ${month} is not YYYY_MM`);
  const partition = `hand_chunks_${month}`;
  const [bounds] = await queryRows<{ low: string; high: string }>(
    db,
    sql`select hand_chunks_bound(${`${month.replace("_", "-")}-01`}::date::timestamp at time zone 'UTC') as low,
               hand_chunks_bound((${`${month.replace("_", "-")}-01`}::date + interval '1 month')::timestamp at time zone 'UTC') as high`,
  );
  const [running] = await queryRows<{ id: string }>(db, sql`select id from matches where status = 'running' and id >= ${bounds.low} and id < ${bounds.high} limit 1`);
  if (running) throw new Error(`match ${running.id} of ${month} is still running: its month cannot be archived yet`);
  const rows = await queryRows<{ match_id: string; first_number: number; last_number: number; data: Uint8Array | string }>(
    db,
    sql.raw(`select match_id, first_number, last_number, data from "${partition}" order by match_id, first_number`),
  );
  const byMatch = new Map<string, StoredChunk[]>();
  for (const row of rows) {
    const data = typeof row.data === "string" ? Buffer.from(row.data.replace(/^\\x/, ""), "hex") : row.data;
    let list = byMatch.get(row.match_id);
    if (!list) byMatch.set(row.match_id, (list = []));
    list.push({ first: row.first_number, last: row.last_number, bytes: new Uint8Array(data) });
  }
  const frames: Uint8Array[] = [];
  const index: ArchiveIndex = { format: ARCHIVE_FORMAT, month, matches: {} };
  let offset = 0, hands = 0;
  for (const [matchId, chunks] of byMatch) {
    const frame = frameOf(chunks);
    const count = chunks.reduce((sum, c) => sum + c.last - c.first + 1, 0);
    index.matches[matchId] = [offset, frame.length, count];
    frames.push(frame);
    offset += frame.length;
    hands += count;
  }
  mkdirSync(dir, { recursive: true });
  writeDurably(dataFile(dir, month), Buffer.concat(frames));
  writeDurably(indexFile(dir, month), Bun.zstdCompressSync(Buffer.from(JSON.stringify(index)), { level: 19 }));
  indexes.delete(indexFile(dir, month));
  // Read back: every match's chunks, byte for byte, before a row is dropped.
  for (const [matchId, chunks] of byMatch) {
    const back = archivedChunks(dir, matchId);
    const same = back.length === chunks.length && back.every((c, i) => c.first === chunks[i].first && c.last === chunks[i].last && Buffer.from(c.bytes).equals(Buffer.from(chunks[i].bytes)));
    invariant(same, `archive of ${month}: match ${matchId} does not read back as stored`);
  }
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`alter table hand_chunks detach partition "${partition}"`));
    await tx.execute(sql.raw(`drop table "${partition}"`));
  });
  return { matches: byMatch.size, hands, bytes: offset };
}

/** Puts an archived month back into the database (its partition made again); the files stay. */
export async function restorePartition(db: Db, dir: string, month: string): Promise<{ matches: number; hands: number }> {
  const index = indexOf(dir, month);
  if (!index) throw new Error(`no archive of ${month} in ${dir}`);
  await db.execute(sql`select ensure_hand_chunks_partition(${`${month.replace("_", "-")}-01`}::date)`);
  let hands = 0;
  const ids = Object.keys(index.matches);
  for (let i = 0; i < ids.length; i += 500) {
    const rows = ids.slice(i, i + 500).flatMap((matchId) => archivedChunks(dir, matchId).map((chunk) => ({ matchId, ...chunk })));
    hands += rows.reduce((sum, r) => sum + r.last - r.first + 1, 0);
    if (rows.length === 0) continue;
    await db.execute(sql`insert into hand_chunks (match_id, first_number, last_number, data)
      select x.m, x.f, x.l, decode(x.d, 'base64') from unnest(${sql.param(rows.map((r) => r.matchId))}::text[], ${sql.param(rows.map((r) => r.first))}::int[],
        ${sql.param(rows.map((r) => r.last))}::int[], ${sql.param(rows.map((r) => Buffer.from(r.bytes).toString("base64")))}::text[]) as x(m, f, l, d)
      on conflict do nothing`);
  }
  return { matches: ids.length, hands };
}
