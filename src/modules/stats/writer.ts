import { sql } from "drizzle-orm";
import type { Tx } from "../../db";
import { compareIds } from "../../lib/ids";
import { winnersOf } from "../../poker/match-winners";

/**
 * The statistics (and so the leaderboard) a finished match writes: one row per bot in
 * `bot_stats`, summed into what is there, in the match end's transaction.
 */

/** What statistics need of a finished match. */
export interface MatchForStats {
  endedAt: Date;
  players: Array<{ botId: string; buyIn: number; finalChips: number; handsPlayed: number; handsWon: number }>;
}

/** Writes the stats of ranked matches that end together (nothing for none). */
export function writeMatchStats(tx: Tx, matches: MatchForStats[]): Promise<unknown> | null {
  const rows = statsRows(matches);
  return rows.length > 0 ? upsertStats(tx, rows) : null;
}

/** A bot's stats row as the upsert reads it from JSON (column names, a Date becoming its ISO text). */
interface StatsRow {
  bot_id: string;
  matches_played: number;
  matches_won: number;
  hands_played: number;
  hands_won: number;
  total_buy_ins: number;
  total_winnings: number;
  net_chips: number;
  biggest_win: number;
  biggest_loss: number;
  last_played: Date;
}

const SUMMED = ["matches_played", "matches_won", "hands_played", "hands_won", "total_buy_ins", "total_winnings", "net_chips"] as const;

/**
 * One row per bot, in bot id order: a bot that busted in one match may already have played another
 * that ends with it, and one statement cannot upsert a row twice.
 */
function statsRows(outcomes: MatchForStats[]): StatsRow[] {
  const byBot = new Map<string, StatsRow>();
  for (const outcome of outcomes) {
    const winnerIds = new Set(winnersOf(outcome.players).map((w) => w.botId));
    for (const player of outcome.players) {
      const row = statsOf(player, winnerIds.has(player.botId), outcome.endedAt);
      const earlier = byBot.get(player.botId);
      byBot.set(player.botId, earlier ? mergeStats(earlier, row) : row);
    }
  }
  return [...byBot.values()].sort((a, b) => compareIds(a.bot_id, b.bot_id));
}

function statsOf(player: MatchForStats["players"][number], won: boolean, endedAt: Date): StatsRow {
  const profit = player.finalChips - player.buyIn;
  return {
    bot_id: player.botId,
    matches_played: 1,
    matches_won: won ? 1 : 0,
    hands_played: player.handsPlayed,
    hands_won: player.handsWon,
    total_buy_ins: player.buyIn,
    total_winnings: player.finalChips,
    net_chips: profit,
    biggest_win: Math.max(0, profit),
    biggest_loss: Math.min(0, profit),
    last_played: endedAt,
  };
}

/** The same merge the upsert does with a stored row. */
function mergeStats(a: StatsRow, b: StatsRow): StatsRow {
  const merged = { ...a, biggest_win: Math.max(a.biggest_win, b.biggest_win), biggest_loss: Math.min(a.biggest_loss, b.biggest_loss) };
  for (const key of SUMMED) merged[key] = a[key] + b[key];
  if (b.last_played > a.last_played) merged.last_played = b.last_played;
  return merged;
}

// Rows go in as ONE json parameter, so the statement's text never changes and stays prepared.
function upsertStats(tx: Tx, rows: StatsRow[]): Promise<unknown> {
  return tx.execute(sql`insert into bot_stats (bot_id, matches_played, matches_won, hands_played, hands_won, total_buy_ins, total_winnings, net_chips, biggest_win, biggest_loss, last_played)
    select x.bot_id, x.matches_played, x.matches_won, x.hands_played, x.hands_won, x.total_buy_ins, x.total_winnings, x.net_chips, x.biggest_win, x.biggest_loss, x.last_played
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(bot_id text, matches_played int, matches_won int, hands_played int, hands_won int,
      total_buy_ins bigint, total_winnings bigint, net_chips bigint, biggest_win bigint, biggest_loss bigint, last_played timestamptz)
    on conflict (bot_id) do update set
      matches_played = bot_stats.matches_played + excluded.matches_played,
      matches_won = bot_stats.matches_won + excluded.matches_won,
      hands_played = bot_stats.hands_played + excluded.hands_played,
      hands_won = bot_stats.hands_won + excluded.hands_won,
      total_buy_ins = bot_stats.total_buy_ins + excluded.total_buy_ins,
      total_winnings = bot_stats.total_winnings + excluded.total_winnings,
      net_chips = bot_stats.net_chips + excluded.net_chips,
      biggest_win = greatest(bot_stats.biggest_win, excluded.biggest_win),
      biggest_loss = least(bot_stats.biggest_loss, excluded.biggest_loss),
      last_played = greatest(bot_stats.last_played, excluded.last_played)`);
}
