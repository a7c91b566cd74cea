import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { tableConfigOf } from "../../db/table-config";
import { anyOf, queryRows, type Db } from "../../db";
import { bots, matches, matchPlayers } from "../../db/schema";
import { errors } from "../../lib/errors";
import { descending, idCursor, keysetPage, PAGE, pageOf } from "../../lib/paging";
import { formatCard, UNKNOWN_CARD } from "@poker-bots/core/cards";
import { DUPLICATE_DECK_ALGORITHM, FAIR_DECK_ALGORITHM } from "../../poker/fair-deck";
import { winnersOf } from "../../poker/match-winners";
import { phhOfHands, type StoredHand } from "../match-host/hand-history";
import { recordedHands, recordedNumbers } from "../match-host/hand-store";
import { selectMatchRecords, selectMatches, type MatchRecordRow, type MatchRow } from "../match-host/match-rows";
import { decodeRecorded, matchDealOf } from "../match-host/recorded-hands";
import { PUBLIC, visibleHand, type Visibility } from "./visibility";

/**
 * A ladder match names its format; a tournament's names its tournament; a challenge is marked; a
 * private one (a table a developer made) has none of these. `rated`: it counts toward the ratings.
 */
export interface MatchKind {
  ladder: string | null;
  tournamentId: string | null;
  challenge: boolean;
  rated: boolean;
}

/** A page of a match's hands: those numbered above `after`, at most `limit`. */
export interface HandsPage {
  after: number;
  limit: number;
}

/** Hands read and formatted per step of a PHH stream. */
const PHH_BATCH = 200;

/** The match list's order: newest first, ties by id (matches_listing_idx). */
const LISTING = [descending(matches.endedAt), descending(matches.id)];

const CARD_FIELDS = new Set(["cards", "board"]);

/** Card ids become strings ("As") for people and bots reading histories; hidden hole cards are null. */
function withCardNames(event: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    if (!CARD_FIELDS.has(key) || !Array.isArray(value)) out[key] = value;
    else out[key] = value.includes(UNKNOWN_CARD) ? null : value.map((c) => formatCard(c as number));
  }
  return out;
}

export class Matches {
  /** `archiveDir`: HANDS_ARCHIVE_DIR, where archived months of hands are read from (hand-archive.ts). */
  constructor(
    private readonly db: Db,
    private readonly archiveDir?: string,
  ) {}

  /** Completed matches, newest first (ties by id), `before` a matchId cursor, `botId` filter. */
  async list(query: { limit?: number; before?: string; botId?: string }) {
    const completed = eq(matches.status, "completed");
    const after = await idCursor(this.db, matches, LISTING, { id: query.before, within: completed, field: "before", unknown: "Unknown match cursor" });
    const played = query.botId === undefined ? undefined : inArray(matches.id, this.db.select({ id: matchPlayers.matchId }).from(matchPlayers).where(eq(matchPlayers.botId, query.botId)));
    const page = await keysetPage(selectMatchRecords(this.db).$dynamic(), { where: and(completed, played), order: LISTING, limit: query.limit ?? PAGE.default, after }, (last) => last.id);
    return { items: await this.withPlayers(page.items), next: page.next };
  }

  /** What kind of match each one was: a ladder format's, a tournament's, a challenge, or a private table's (a developer made it). */
  async kindsOf(matchIds: string[]): Promise<Map<string, MatchKind>> {
    if (matchIds.length === 0) return new Map();
    const rows = await queryRows<{ id: string; ladder: string | null; tournament_id: string | null; challenge: boolean; rated: boolean }>(
      this.db,
      sql`select m.id, t.ladder, c.config->>'tournamentId' as tournament_id, coalesce((c.config->>'unrated')::boolean, false) and c.config->>'tournamentId' is null as challenge,
            (m.rated_seq is not null or m.rating_pending) as rated
          from matches m join tables t on t.id = m.table_id cross join lateral (select ${tableConfigOf("t")} as config) c
          where m.id = any(${sql.param(matchIds)}::text[])`,
    );
    return new Map(rows.map((row) => [row.id, { ladder: row.ladder, tournamentId: row.tournament_id, challenge: row.challenge, rated: row.rated }]));
  }

  async get(matchId: string) {
    return (await this.withPlayers([await this.completedRow(matchId)]))[0];
  }

  /** The match record with the hand numbers its resumptions voided (the replay page marks them). */
  async withVoidedHands(matchId: string) {
    const row = await this.completedRow(matchId);
    return { ...(await this.withPlayers([row]))[0], voidedHands: row.voidedHands };
  }

  /**
   * What `viewerId` may see of a match's hands: anonymous readers and rivals get the hole cards
   * that were shown down; a developer also gets their own bots' cards (all of them when every
   * bot in the match is theirs).
   */
  async visibilityFor(matchId: string, viewerId: string | null): Promise<Visibility> {
    if (viewerId === null) return PUBLIC;
    const own = await this.db
      .select({ botId: matchPlayers.botId })
      .from(matchPlayers)
      .innerJoin(bots, eq(bots.id, matchPlayers.botId))
      .where(and(eq(matchPlayers.matchId, matchId), eq(bots.developerId, viewerId)));
    return { ownBots: new Set(own.map((row) => row.botId)) };
  }

  /**
   * Up to `limit` hands after hand number `after`, in order (`number` is the key; the cursor), as
   * `visibility` shows them: decoded from their stored form with the match's revealed deck secret.
   */
  private async handRows(match: MatchRow, after: number, limit: number, visibility: Visibility): Promise<Array<{ number: number; hand: StoredHand }>> {
    const hands = decodeRecorded(matchDealOf(match, match.deckSecret), await recordedHands(this.db, match.id, after, limit, this.archiveDir), after, limit);
    return hands.map((hand) => ({ number: hand.handNumber, hand: visibleHand(hand, visibility) }));
  }

  /** One page of hands as JSON; `next` is the cursor of the following page when more remain. */
  async handsJson(matchId: string, page: HandsPage, viewerId: string | null = null) {
    const match = await this.completedRow(matchId);
    await this.refuseWhileTwinPlays(match, "Hand histories");
    const rows = await this.handRows(match, page.after, page.limit + 1, await this.visibilityFor(matchId, viewerId));
    const found = pageOf(rows, page.limit, (last) => last.number);
    return {
      body: {
        matchId,
        seeded: match.config.seed !== undefined,
        voidedHands: match.voidedHands,
        hands: found.items.map(({ hand: { config: _config, ...hand } }) => ({
          ...hand,
          board: hand.board.map(formatCard),
          events: hand.events.map((event) => withCardNames(event as unknown as Record<string, unknown>)),
        })),
      },
      next: found.next,
    };
  }

  /**
   * One page of hands as PHH "hand history set" text (one TOML table per hand, named by its
   * number), streamed: hands are read and formatted PHH_BATCH at a time as the client reads,
   * so neither the text nor the rows of a long match are ever held at once.
   */
  async handsPhh(matchId: string, page: HandsPage, viewerId: string | null = null): Promise<{ stream: ReadableStream<Uint8Array>; next: number | null }> {
    const match = await this.completedRow(matchId);
    await this.refuseWhileTwinPlays(match, "Hand histories");
    const visibility = await this.visibilityFor(matchId, viewerId);
    // The page's last hand number, and whether any hand follows it, decide the Link before streaming.
    const edge = (await recordedNumbers(this.db, matchId, page.after, page.limit + 1)).slice(page.limit - 1);
    const last = edge[0] ?? Number.MAX_SAFE_INTEGER;
    const set = { matchId, tableId: match.tableId, seeded: match.config.seed !== undefined, seatCount: match.config.maxPlayers };
    const encoder = new TextEncoder();
    let cursor = page.after;
    let first = true;
    const stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const batch = (await this.handRows(match, cursor, PHH_BATCH, visibility)).filter((row) => row.number <= last);
        if (batch.length === 0) return controller.close();
        cursor = batch[batch.length - 1].number;
        const text = phhOfHands(set, batch.map((row) => row.hand));
        controller.enqueue(encoder.encode(first ? text : `\n${text}`));
        first = false;
        if (cursor >= last) controller.close();
      },
    });
    return { stream, next: edge.length === 2 ? last : null };
  }

  /**
   * The deck secret of a completed match, with its commitment: anyone can re-derive every card. A
   * copy of a duplicate pair shares its secret with the other copy, whose hand n deals the same
   * deck: revealed only once both copies have ended (the other copy's cards are its secret too).
   */
  async fairness(matchId: string) {
    const row = await this.completedRow(matchId);
    await this.refuseWhileTwinPlays(row, "Fairness record");
    if (row.deckSecret === null || row.deckCommitment === null) throw errors.notFound("Fairness record (a seeded match deals from its seed)");
    // A duplicate match recorded before issue 32 was one match dealing each deck twice: its own rule.
    const algorithm = row.config.duplicate && row.twinMatchId === null ? DUPLICATE_DECK_ALGORITHM : FAIR_DECK_ALGORITHM;
    return { matchId, deckCommitment: row.deckCommitment, deckSecret: row.deckSecret, algorithm, handsPlayed: row.handsPlayed, voidedHands: row.voidedHands, twinMatchId: row.twinMatchId, round: await this.roundOf(row) };
  }

  /** A hosted round robin's match: its round and every match that dealt the round's decks (all committed to this secret). */
  private async roundOf(row: MatchRow): Promise<{ tournamentId: string; round: number; matchIds: string[] } | null> {
    const deal = row.config.dealRound;
    if (!deal) return null;
    const rows = await queryRows<{ id: string }>(
      this.db,
      sql`select m.id from matches m join tables t on t.id = m.table_id where ${tableConfigOf("t")}->'dealRound' = ${JSON.stringify(deal)}::jsonb order by m.id`,
    );
    return { ...deal, matchIds: rows.map((r) => r.id) };
  }

  /**
   * A copy of a duplicate pair whose other copy is still waiting or running: that copy has cards of
   * this match's secret still to deal, so neither the secret nor this copy's hands (their boards and
   * shown cards are the other copy's) are served yet, and the secret is still sealed (match-finish.ts
   * reveals it with the copy that ends second).
   */
  private async refuseWhileTwinPlays(row: MatchRow, what: string): Promise<void> {
    // A hosted round robin's match: its round's other matches still deal the same decks.
    if (row.deckSecret === null && row.deckSecretSealed !== null) throw errors.notFound(`${what} (this match's round still deals the same decks to other matches: served once the round ends)`);
    if (row.twinMatchId === null) return;
    const [twin] = await queryRows<{ status: string }>(this.db, sql`select tw.status from tables t join tables tw on tw.id = t.twin_id where t.id = ${row.tableId}`);
    if (twin && (twin.status === "waiting" || twin.status === "running")) {
      throw errors.notFound(`${what} (the other copy of this duplicate match still plays on the same decks: served once it ends)`);
    }
  }

  private async completedRow(matchId: string): Promise<MatchRow> {
    const rows = await selectMatches(this.db).where(and(eq(matches.id, matchId), eq(matches.status, "completed")));
    if (rows.length === 0) throw errors.notFound("Match");
    return rows[0];
  }

  private async withPlayers(rows: MatchRecordRow[]) {
    if (rows.length === 0) return [];
    const players = await this.db
      .select()
      .from(matchPlayers)
      .where(anyOf(matchPlayers.matchId, rows.map((r) => r.id)))
      .orderBy(asc(matchPlayers.position), sql`${matchPlayers.botId}`);
    return rows.map((row) => {
      const own = players.filter((p) => p.matchId === row.id);
      return {
        matchId: row.id,
        config: {
          buyIn: row.config.buyIn,
          smallBlind: row.config.smallBlind,
          bigBlind: row.config.bigBlind,
          maxPlayers: row.config.maxPlayers,
        },
        players: own.map((p) => ({ botId: p.botId, finalChips: p.finalChips, profit: p.profit })),
        // Not stored when the players in seat order name them (poker/match-winners.ts `storedWinners`).
        winners: row.winners ?? winnersOf(own),
        handsPlayed: row.handsPlayed,
        duration: row.durationMs ?? 0,
        startedAt: row.startedAt.toISOString(),
        endedAt: (row.endedAt ?? row.startedAt).toISOString(),
      };
    });
  }
}
