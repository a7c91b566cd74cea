/**
 * TV (issue 39), like lichess TV: matches between bots are over in a second, so the channel plays
 * a recent rated match from the records at a pace a person can read (one action every
 * TV_ACTION_MS), then switches to the next. Which match: of the rated matches that ended in the
 * last TV_WINDOW_MS, the pairing with the highest average rating (none: the latest rated match);
 * of it, its TV_HANDS_PER_MATCH biggest pots, in the order they were played. Every viewer of a
 * node sees the same program at the same moment, so a page opened mid-hand shows the hand so far.
 */
import { sql } from "drizzle-orm";
import { tableConfigOf } from "../../db/table-config";
import { queryRows, type Db } from "../../db";
import type { Clock } from "../../lib/clock";
import type { Matches } from "../matches/service";

/** How far back the channel looks for the best pairing. */
export const TV_WINDOW_MS = 15 * 60_000;
/** Candidates tried in turn (a copy of a duplicate pair is not readable while its twin plays). */
const CANDIDATES = 5;

export interface TvHand {
  handNumber: number;
  button: number;
  players: Array<{ seat: number; botId: string; startingStack: number; finalStack: number }>;
  events: Array<{ type: string; seat?: number; [key: string]: unknown }>;
}

export interface TvProgram {
  matchId: string;
  names: Record<string, string>;
  maxPlayers: number;
  /** The match as played: when, how long, how many hands (the page says how far behind live a hand is). */
  matchStartedAt: string;
  matchDurationMs: number;
  handsPlayed: number;
  /** Average rating of the pairing (μ − 3σ), and why this match was picked. */
  pairingRating: number;
  picked: "best-pairing" | "latest";
  hands: TvHand[];
  /** Frames in all (each hand: its dealt state, then one per event), shown actionMs apart from startsAt. */
  frames: number;
  startsAt: number;
  actionMs: number;
}

export interface TvSettings {
  actionMs: number;
  handsPerMatch: number;
}

const framesOf = (hands: TvHand[]) => hands.reduce((n, h) => n + h.events.length + 1, 0);
const potOf = (hand: TvHand) => hand.players.reduce((sum, p) => sum + Math.max(0, p.finalStack - p.startingStack), 0);

export class TvChannel {
  private program: TvProgram | null = null;
  private choosing: Promise<TvProgram | null> | null = null;

  constructor(
    private readonly db: Db,
    private readonly matches: Matches,
    private readonly namesOf: (botIds: string[]) => Promise<Record<string, string>>,
    private readonly clock: Clock,
    readonly settings: TvSettings,
  ) {}

  /** The program on now (a new one once the last has played out); null: no rated match yet. */
  async now(): Promise<TvProgram | null> {
    const program = this.program;
    if (program && this.clock.now() < program.startsAt + program.frames * program.actionMs) return program;
    this.choosing ??= this.next(program?.matchId ?? null).finally(() => (this.choosing = null));
    return this.choosing;
  }

  private async next(previous: string | null): Promise<TvProgram | null> {
    const since = new Date(this.clock.now() - TV_WINDOW_MS).toISOString();
    const best = await this.candidates(sql`and m.ended_at > ${since}::timestamptz and m.id <> ${previous ?? ""}`, sql`pairing desc, m.ended_at desc`);
    const latest = best.length > 0 ? [] : await this.candidates(sql``, sql`m.ended_at desc`);
    for (const [candidate, picked] of [...best.map((c) => [c, "best-pairing"] as const), ...latest.map((c) => [c, "latest"] as const)]) {
      const hands = await this.handsOf(candidate.id);
      if (!hands || hands.length === 0) continue;
      const chosen = new Set([...hands].sort((a, b) => potOf(b) - potOf(a) || a.handNumber - b.handNumber).slice(0, this.settings.handsPerMatch));
      const shown = hands.filter((h) => chosen.has(h));
      this.program = {
        matchId: candidate.id,
        names: await this.namesOf([...new Set(shown.flatMap((h) => h.players.map((p) => p.botId)))]),
        maxPlayers: candidate.max_players,
        matchStartedAt: new Date(candidate.started_at).toISOString(),
        matchDurationMs: Number(candidate.duration_ms ?? 0),
        handsPlayed: candidate.hands_played,
        pairingRating: Number(candidate.pairing),
        picked,
        hands: shown,
        frames: framesOf(shown),
        startsAt: this.clock.now(),
        actionMs: this.settings.actionMs,
      };
      return this.program;
    }
    return null;
  }

  private candidates(filter: ReturnType<typeof sql>, order: ReturnType<typeof sql>) {
    return queryRows<{ id: string; started_at: string; duration_ms: string | null; hands_played: number; max_players: number; pairing: number }>(
      this.db,
      sql`select m.id, m.started_at, m.duration_ms, m.hands_played, (${tableConfigOf("t")}->>'maxPlayers')::int as max_players, avg(coalesce(r.rating, 0)) as pairing
          from matches m join tables t on t.id = m.table_id join match_players mp on mp.match_id = m.id left join bot_ratings r on r.bot_id = mp.bot_id
          where m.status = 'completed' and (m.rated_seq is not null or m.rating_pending) and m.hands_played > 0 ${filter}
          group by m.id, t.id order by ${order} limit ${CANDIDATES}`,
    );
  }

  /** The match's public hands (no hole card that was not shown down), or null when they cannot be read now. */
  private async handsOf(matchId: string): Promise<TvHand[] | null> {
    try {
      return (await this.matches.handsJson(matchId, { after: 0, limit: 1000 })).body.hands as unknown as TvHand[];
    } catch {
      return null;
    }
  }
}
