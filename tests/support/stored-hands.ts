/** A match's hands straight from the database (every card), and a way to tamper with them: the ground truth of the history tests. */
import { selectMatches } from "../../src/modules/match-host/match-rows";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "../../src/db";
import * as schema from "../../src/db/schema";
import type { StoredHand } from "../../src/poker/hand-record";
import { recordedHands } from "../../src/modules/match-host/hand-store";
import { decodeRecorded, matchDealOf } from "../../src/modules/match-host/recorded-hands";

export async function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await work(drizzle(client, { schema }) as unknown as Db);
  } finally {
    await client.end();
  }
}

/** Every hand of a completed match as stored, decoded with its revealed deck secret. */
export function storedHands(url: string, matchId: string): Promise<StoredHand[]> {
  return withDb(url, (db) => storedHandsOf(db, matchId));
}

/**
 * Stores a match's hands again as JSON rows (the form before compact storage, still read side by
 * side), each passed through `change` first: how a test makes a server serve a history that lies.
 */
export function restoreAsJson(url: string, matchId: string, change: (hand: StoredHand) => void = () => {}): Promise<void> {
  return withDb(url, async (db) => {
    const hands = await storedHandsOf(db, matchId);
    await db.transaction(async (tx) => {
      await tx.execute(sql`delete from hand_chunks where match_id = ${matchId}`);
      for (const hand of hands) {
        change(hand);
        await tx.execute(sql`insert into hands_legacy (match_id, number, history, created_at) values (${matchId}, ${hand.handNumber}, ${JSON.stringify(hand)}::json, now())`);
      }
    });
  });
}

/** Every recorded hand of a match whose secret is revealed (or seeded), decoded: on a connection the caller holds. */
export async function storedHandsOf(db: Db, matchId: string): Promise<StoredHand[]> {
  const [match] = await selectMatches(db).where(eq(schema.matches.id, matchId));
  return decodeRecorded(matchDealOf(match, match.deckSecret), await recordedHands(db, matchId));
}
