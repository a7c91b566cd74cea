/** Shared by the duplicate-isolation tests (issue 32): uploading a fixture through the API, and reading what a pair played. */
import { sql } from "drizzle-orm";
import { queryRows, type Db, type Queryable } from "../../src/db";
import { storedHandsOf } from "../support/stored-hands";
import type { StoredHand } from "../../src/modules/match-host/hand-history";
import { FIXTURES } from "./support";

/** A fixture's source, with its placeholders replaced (a baked-in variant). */
export async function fixtureSource(name: string, replacements: Record<string, string> = {}): Promise<string> {
  let source = await Bun.file(new URL(`${name}.ts`, FIXTURES)).text();
  for (const [from, to] of Object.entries(replacements)) source = source.replaceAll(from, to);
  return source;
}

/** PUT /api/bots/:botId/code over real HTTP: the upload a developer makes (validated, stored as the next version). */
export async function uploadOverHttp(url: string, token: string, botId: string, source: string): Promise<number> {
  const response = await fetch(`${url}/api/bots/${botId}/code`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "text/typescript" }, body: source });
  const body = (await response.json()) as { version?: number };
  if (response.status !== 201) throw new Error(`upload of ${botId}: ${response.status} ${JSON.stringify(body)}`);
  return body.version!;
}

/** A pair's two matches (copy 1's first) by copy 1's table, once both have ended; null before. */
export async function endedPair(db: Queryable, copyOneTable: string): Promise<[string, string] | null> {
  const rows = await queryRows<{ id: string; status: string; copy: number }>(
    db,
    sql`select m.id, m.status, t.copy from tables t join matches m on m.id = t.match_id where t.id = ${copyOneTable} or t.twin_id = ${copyOneTable} order by t.copy`,
  );
  return rows.length === 2 && rows.every((r) => r.status === "completed") ? [rows[0].id, rows[1].id] : null;
}

/** Every stored hand of a match (every card), by hand number. */
export async function storedHands(db: Queryable | Db, matchId: string): Promise<Map<number, StoredHand>> {
  return new Map((await storedHandsOf(db as Db, matchId)).map((hand) => [hand.handNumber, hand]));
}

/** A bot's console lines in a match, oldest first. */
export async function botLines(db: Queryable, botId: string, matchId: string): Promise<string[]> {
  const rows = await queryRows<{ message: string }>(db, sql`select message from hosted_logs where bot_id = ${botId} and match_id = ${matchId} and kind = 'log' order by id`);
  return rows.map((row) => row.message);
}

export interface KnownHands {
  /** Hands the exploiter acted on what it inferred (`known <hand> <verdict>` lines). */
  count: number;
  /** Chips it won over those hands, and Σ of each hand's result squared (the sum's spread). */
  chips: number;
  sumSquares: number;
  /** Of the hands it called strong (it raises, the calling station calls to showdown): won, tied, played. */
  strong: { won: number; tied: number; played: number };
  /** Hands both copies took to a showdown on the full board: how often the same seat won in both (the information the old model leaked). */
  bothShown: { same: number; compared: number };
}

const resultOf = (hand: StoredHand, botId: string) => {
  const player = hand.players.find((p) => p.botId === botId)!;
  return player.finalStack - player.startingStack;
};
const shownDown = (hand: StoredHand) => hand.board.length === 5 && hand.events.filter((e) => e.type === "show").length === 2;
const winningSeats = (hand: StoredHand) => [...new Set(hand.pots.flatMap((pot) => pot.winners))].sort().join();

/** What the exploiter made of its inferences over these pairs (each [copy 1's match, copy 2's]). */
export async function knownHands(db: Queryable, exploiter: string, pairs: Array<[string, string]>): Promise<KnownHands> {
  const known: KnownHands = { count: 0, chips: 0, sumSquares: 0, strong: { won: 0, tied: 0, played: 0 }, bothShown: { same: 0, compared: 0 } };
  for (const pair of pairs) {
    const hands = await Promise.all(pair.map((matchId) => storedHands(db, matchId)));
    for (const [copy, matchId] of pair.entries()) {
      for (const line of await botLines(db, exploiter, matchId)) {
        const found = /^known (\d+) (strong|weak)$/.exec(line);
        if (!found) continue;
        const hand = hands[copy].get(Number(found[1]));
        if (!hand) continue;
        const result = resultOf(hand, exploiter);
        known.count++;
        known.chips += result;
        known.sumSquares += result * result;
        if (found[2] === "strong") {
          known.strong.played++;
          if (result > 0) known.strong.won++;
          if (result === 0) known.strong.tied++;
        }
      }
    }
    for (const [n, first] of hands[0]) {
      const second = hands[1].get(n);
      if (!second || !shownDown(first) || !shownDown(second)) continue;
      known.bothShown.compared++;
      if (winningSeats(first) === winningSeats(second)) known.bothShown.same++;
    }
  }
  return known;
}

/** A bot's chips over every hand of these matches (and Σ of each hand's result squared). */
export async function handResults(db: Queryable, botId: string, matchIds: string[]): Promise<{ hands: number; chips: number; sumSquares: number }> {
  const totals = { hands: 0, chips: 0, sumSquares: 0 };
  for (const matchId of matchIds) {
    for (const hand of (await storedHands(db, matchId)).values()) {
      if (!hand.players.some((p) => p.botId === botId)) continue;
      const result = resultOf(hand, botId);
      totals.hands++;
      totals.chips += result;
      totals.sumSquares += result * result;
    }
  }
  return totals;
}
