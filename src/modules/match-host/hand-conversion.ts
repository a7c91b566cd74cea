/**
 * Moves hands recorded as JSON before compact storage (hands_legacy) into chunks, online: a batch
 * of whole matches per transaction, each hand decoded again from its chunk and compared with its
 * JSON before the JSON row is deleted. A match that does not come back identical (recorded by an
 * older engine, say) keeps its JSON rows, and is served from them as before. The progress is a
 * cursor (the last match id done) written in each batch's transaction, so a process killed
 * mid-way, or a restart, goes on after the last batch committed. Running matches wait for a later
 * pass (their rows stay readable meanwhile: reads take both forms side by side).
 */
import { sql } from "drizzle-orm";
import { tableConfigOf } from "../../db/table-config";
import { queryRows, type Db, type Tx } from "../../db/index";
import { NotEncodable, encodeChunks } from "../../poker/hand-codec";
import type { StoredHand } from "../../poker/hand-record";
import type { DeckSeal } from "./deck-seal";
import { CHUNK_BYTES, upsertChunks } from "./hand-store";
import { chunkFormatOf, decodeRecorded, matchDealOf } from "./recorded-hands";
import type { TableConfig } from "../../db/schema";

/** One converter at a time across the cluster (an arbitrary, fixed key). */
const CONVERSION_LOCK_KEY = 35_182;
const CURSOR_KEY = "hands_conversion_cursor";

export interface ConversionBatch {
  /** Another process holds the conversion: nothing done. */
  busy: boolean;
  /** No match after the cursor has JSON rows: this pass is over. */
  done: boolean;
  converted: number;
  hands: number;
  /** Matches whose rows stay JSON, with why. */
  kept: Array<{ matchId: string; reason: string }>;
  /** Running matches, left for a later pass. */
  running: number;
}

interface MatchRow {
  id: string;
  status: string;
  config: TableConfig;
  deck_secret: string | null;
  deck_secret_sealed: string | null;
  seat_bots: Array<string | null> | null;
  /** A copy of a duplicate pair (its twin's match): it deals hand n from deck n. */
  twin_match_id: string | null;
}

/** The bot at each seat, read off the hands themselves; null if a seat had two. */
function seatBotsOf(hands: StoredHand[]): Array<string | null> | null {
  const seats: Array<string | null> = [];
  for (const hand of hands) {
    for (const { seat, botId } of hand.players) {
      while (seats.length <= seat) seats.push(null);
      if (seats[seat] !== null && seats[seat] !== botId) return null;
      seats[seat] = botId;
    }
  }
  return seats;
}

/** Converts one match inside the batch's transaction: "converted", or why its rows stay. */
async function convertMatch(tx: Tx, seal: DeckSeal, matchId: string): Promise<{ converted: number } | { kept: string } | "running"> {
  const [match] = await queryRows<MatchRow>(tx, sql`select m.id, m.status, ${tableConfigOf("t")} as config, m.deck_secret, m.deck_secret_sealed, m.seat_bots, m.twin_match_id from matches m join tables t on t.id = m.table_id where m.id = ${matchId}`);
  if (!match) return { kept: "no match row" };
  if (match.status === "running") return "running";
  const rows = await queryRows<{ number: number; json: string }>(tx, sql`select number, history::text as json from hands_legacy where match_id = ${matchId} order by number`);
  const hands = rows.map((row) => JSON.parse(row.json) as StoredHand);
  const secret = await seal.secretOf({ id: match.id, deckSecret: match.deck_secret, deckSecretSealed: match.deck_secret_sealed }).catch(() => undefined);
  if (secret === undefined) return { kept: "its deck secret does not unseal" };
  const seatBots = match.seat_bots ?? seatBotsOf(hands);
  if (seatBots === null) return { kept: "a seat held two bots" };
  const deal = matchDealOf({ id: match.id, config: match.config, seatBots, twinMatchId: match.twin_match_id }, secret);
  let chunks;
  try {
    chunks = encodeChunks(hands, chunkFormatOf(deal), CHUNK_BYTES);
  } catch (error) {
    if (error instanceof NotEncodable) return { kept: error.message };
    throw error;
  }
  let decoded: StoredHand[];
  try {
    decoded = decodeRecorded(deal, { chunks, legacy: [] });
  } catch (error) {
    return { kept: `its chunks do not decode: ${(error as Error).message}` };
  }
  const differs = decoded.length !== hands.length ? -1 : decoded.findIndex((hand, i) => JSON.stringify(hand) !== JSON.stringify(hands[i]));
  if (differs !== -1) return { kept: `hand ${hands[Math.max(differs, 0)]?.handNumber} does not decode to its JSON` };
  await upsertChunks(tx, chunks.map((chunk) => ({ ...chunk, matchId })));
  await tx.execute(sql`delete from hands_legacy where match_id = ${matchId}`);
  if (match.seat_bots === null) await tx.execute(sql`update matches set seat_bots = ${sql.param(seatBots)}::text[] where id = ${matchId}`);
  return { converted: hands.length };
}

/** The next batch of matches after the cursor, in one transaction. */
export async function convertBatch(db: Db, seal: DeckSeal, matchesPerBatch: number): Promise<ConversionBatch> {
  return db.transaction(async (tx) => {
    const batch: ConversionBatch = { busy: false, done: false, converted: 0, hands: 0, kept: [], running: 0 };
    const [lock] = await queryRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${CONVERSION_LOCK_KEY}) as locked`);
    if (!lock.locked) return { ...batch, busy: true };
    const [cursor] = await queryRows<{ value: string }>(tx, sql`select value from settings where key = ${CURSOR_KEY}`);
    const ids = await queryRows<{ match_id: string }>(
      tx,
      sql`select distinct match_id from hands_legacy where match_id > ${cursor?.value ?? ""} order by match_id limit ${matchesPerBatch}`,
    );
    if (ids.length === 0) return { ...batch, done: true };
    for (const { match_id } of ids) {
      const result = await convertMatch(tx, seal, match_id);
      if (result === "running") batch.running++;
      else if ("kept" in result) batch.kept.push({ matchId: match_id, reason: result.kept });
      else [batch.converted, batch.hands] = [batch.converted + 1, batch.hands + result.converted];
    }
    await tx.execute(sql`insert into settings (key, value) values (${CURSOR_KEY}, ${ids[ids.length - 1].match_id})
      on conflict (key) do update set value = excluded.value`);
    return batch;
  });
}

/** Starts the next pass from the first match (matches kept or running in this one are tried again then). */
async function startOver(db: Db): Promise<void> {
  await db.execute(sql`delete from settings where key = ${CURSOR_KEY}`);
}

/**
 * Deck secrets stored in plain form by a version before sealing, of matches not completed (running,
 * or aborted: never revealed), are sealed. Each row only if it is still so (a match completing
 * meanwhile keeps its revealed secret).
 */
export async function sealPlainSecrets(db: Db, seal: DeckSeal): Promise<number> {
  const rows = await queryRows<{ id: string; deck_secret: string }>(db, sql`select id, deck_secret from matches where status <> 'completed' and deck_secret is not null`);
  for (const row of rows) {
    const sealed = await seal.seal(row.id, row.deck_secret);
    await db.execute(sql`update matches set deck_secret_sealed = ${sealed}, deck_secret = null where id = ${row.id} and status <> 'completed' and deck_secret = ${row.deck_secret}`);
  }
  return rows.length;
}

export interface ConversionPass {
  converted: number;
  hands: number;
  kept: number;
  running: number;
  /** Another process was converting: this pass stopped. */
  busy: boolean;
}

/**
 * One pass over every match with JSON rows, batch after batch, until none is left after the cursor
 * (or `stop()`). Between batches it pauses as long as the batch took, so a serving node gives at
 * most about half a core to it. Kept and running matches are tried again by the next pass.
 */
export async function convertLegacyHands(
  db: Db,
  seal: DeckSeal,
  options: {
    matchesPerBatch?: number;
    log?: (message: string) => void;
    stop?: () => boolean;
    /** Pause after each batch: absent, as long as the batch took. */
    pauseMs?: number;
    onBatch?: (batch: ConversionBatch) => void;
  } = {},
): Promise<ConversionPass> {
  const pass: ConversionPass = { converted: 0, hands: 0, kept: 0, running: 0, busy: false };
  for (;;) {
    if (options.stop?.()) return pass;
    const started = performance.now();
    const batch = await convertBatch(db, seal, options.matchesPerBatch ?? 20);
    if (batch.busy) return { ...pass, busy: true };
    pass.converted += batch.converted;
    pass.hands += batch.hands;
    pass.kept += batch.kept.length;
    pass.running += batch.running;
    for (const { matchId, reason } of batch.kept) options.log?.(`hand conversion: match ${matchId} keeps its JSON rows (${reason})`);
    options.onBatch?.(batch);
    if (batch.done) {
      // Rows left (kept, or of matches that were running): the next pass, at the next start, tries them again.
      const [left] = await queryRows<{ any: boolean }>(db, sql`select exists (select 1 from hands_legacy) as any`);
      if (left.any) await startOver(db);
      return pass;
    }
    await Bun.sleep(options.pauseMs ?? performance.now() - started);
  }
}
