import { eq, getTableColumns, sql } from "drizzle-orm";
import type { Queryable } from "../../db";
import { matches, tables } from "../../db/schema";
import { tableConfigColumn } from "../../db/table-config";

/**
 * The bot at each seat of a match, from its row while it runs (matches.seat_bots: its hands are
 * stored by seat) and from its players once it is completed: the match end clears the column
 * (issue 35: its bot ids were a second copy of match_players' bot and position, ~40 bytes a seat).
 * Same shape either way: one entry per seat of the table, null where nobody sat.
 */
const seatBots = sql<Array<string | null> | null>`case when ${matches.seatBots} is null and ${matches.status} = 'completed' then array(
    select (select mp.bot_id from match_players mp where mp.match_id = ${matches.id} and mp.position = seat order by mp.bot_id limit 1)
    from generate_series(0, (${tableConfigColumn}->>'maxPlayers')::int - 1) as seat order by seat)
  else ${matches.seatBots} end`;

const { seatBots: _storedSeatBots, ...matchColumns } = getTableColumns(matches);

/**
 * A match's record with its config, read from its table: one match a table, and a table's config
 * never changes, so the match keeps no copy of it (issue 35: ~160 bytes a match). Rows written
 * before still hold theirs (the same), unread. Without the seats' bots: what a listing needs.
 */
const MATCH_RECORD_COLUMNS = { ...matchColumns, config: tableConfigColumn };

/** A match's row as its hands are decoded from: its record and the bot at each seat. */
export const MATCH_COLUMNS = { ...MATCH_RECORD_COLUMNS, seatBots };

/** Matches with their config and seats' bots (add a where): a join on the table's primary key. */
export const selectMatches = (db: Queryable) => db.select(MATCH_COLUMNS).from(matches).innerJoin(tables, eq(tables.id, matches.tableId));

/** Matches' records only (a listing reads their players itself: no second read of them for the seats). */
export const selectMatchRecords = (db: Queryable) => db.select(MATCH_RECORD_COLUMNS).from(matches).innerJoin(tables, eq(tables.id, matches.tableId));

export type MatchRow = Awaited<ReturnType<typeof selectMatches>>[number];
export type MatchRecordRow = Awaited<ReturnType<typeof selectMatchRecords>>[number];
