import { and, asc, desc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { anyOf, type Db } from "../../db";
import { hands, matches, matchPlayers } from "../../db/schema";
import { errors } from "../../lib/errors";
import { formatCard } from "../../poker/cards";
import { phhOfHands, type StoredHand } from "../tables/hand-history";

type MatchRow = typeof matches.$inferSelect;

const CARD_FIELDS = new Set(["cards", "board"]);

/** Card ids become strings ("As") for people and bots reading histories. */
function withCardNames(event: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    out[key] = CARD_FIELDS.has(key) && Array.isArray(value) ? value.map((c) => formatCard(c as number)) : value;
  }
  return out;
}

export class Matches {
  constructor(private readonly db: Db) {}

  /** Completed matches, newest first (ties by id), `before` a matchId cursor, `botId` filter. */
  async list(query: { limit?: number; before?: string; botId?: string }) {
    const conditions = [eq(matches.status, "completed")];
    if (query.before !== undefined) {
      const [cursor] = await this.db.select().from(matches).where(and(eq(matches.id, query.before), eq(matches.status, "completed")));
      if (!cursor) throw errors.validation("Unknown match cursor", { field: "before" });
      conditions.push(or(lt(matches.endedAt, cursor.endedAt!), and(eq(matches.endedAt, cursor.endedAt!), lt(matches.id, cursor.id)))!);
    }
    if (query.botId !== undefined) {
      conditions.push(inArray(matches.id, this.db.select({ id: matchPlayers.matchId }).from(matchPlayers).where(eq(matchPlayers.botId, query.botId))));
    }
    const rows = await this.db
      .select()
      .from(matches)
      .where(and(...conditions))
      .orderBy(desc(matches.endedAt), desc(matches.id))
      .limit(query.limit ?? 50);
    return this.withPlayers(rows);
  }

  async get(matchId: string) {
    const rows = await this.db.select().from(matches).where(and(eq(matches.id, matchId), eq(matches.status, "completed")));
    if (rows.length === 0) throw errors.notFound("Match");
    return (await this.withPlayers(rows))[0];
  }

  async hands(matchId: string) {
    await this.get(matchId);
    const rows = await this.db.select().from(hands).where(eq(hands.matchId, matchId)).orderBy(asc(hands.number));
    return rows.map((row) => row.history as StoredHand);
  }

  async handsJson(matchId: string) {
    const stored = await this.hands(matchId);
    return {
      matchId,
      hands: stored.map(({ config: _config, ...hand }) => ({
        ...hand,
        board: hand.board.map(formatCard),
        events: hand.events.map((event) => withCardNames(event as unknown as Record<string, unknown>)),
      })),
    };
  }

  /** PHH "hand history set" text: one TOML table per hand, named by its number. */
  async handsPhh(matchId: string): Promise<string> {
    const stored = await this.hands(matchId);
    return phhOfHands(matchId, stored);
  }

  private async withPlayers(rows: MatchRow[]) {
    if (rows.length === 0) return [];
    const players = await this.db
      .select()
      .from(matchPlayers)
      .where(anyOf(matchPlayers.matchId, rows.map((r) => r.id)))
      .orderBy(asc(matchPlayers.position), sql`${matchPlayers.botId}`);
    return rows.map((row) => ({
      matchId: row.id,
      config: {
        buyIn: row.config.buyIn,
        smallBlind: row.config.smallBlind,
        bigBlind: row.config.bigBlind,
        maxPlayers: row.config.maxPlayers,
      },
      players: players
        .filter((p) => p.matchId === row.id)
        .map((p) => ({ botId: p.botId, finalChips: p.finalChips, profit: p.profit })),
      winners: row.winners ?? [],
      handsPlayed: row.handsPlayed,
      duration: row.durationMs ?? 0,
      startedAt: row.startedAt.toISOString(),
      endedAt: (row.endedAt ?? row.startedAt).toISOString(),
    }));
  }
}
