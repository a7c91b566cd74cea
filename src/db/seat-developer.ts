import { getTableColumns, sql } from "drizzle-orm";
import { seats } from "./schema";

/**
 * A seat's developer: its bot's owner (a bot's owner never changes), so seats opened since
 * migration 0032 do not store it (issue 35: ~24 bytes a seat) where their bot names it
 * (tables/seat-rows.ts writes it only where it does not: a seat with no bot, a ledger-only stake);
 * every seat opened before holds its own. Every reader of a seat's developer goes
 * through here; only the tables module writes seats (tables/seat-rows.ts).
 */
export const seatDeveloperOf = (alias: string) => sql.raw(`coalesce(${alias}.developer_id, (select b.developer_id from bots b where b.id = ${alias}.bot_id))`);

/** The same for drizzle's queries, which name the table itself (`seats`, unaliased). */
export const seatDeveloperColumn = sql<string>`${seatDeveloperOf("seats")}`;

const { id: _storedBefore0030, ...seatColumns } = getTableColumns(seats);

/** A seat's row with its developer (and without the text id seats opened before migration 0030 keep, unread): what every reader of a whole seat gets. */
export const SEAT_COLUMNS = { ...seatColumns, developerId: seatDeveloperColumn };

export type SeatRow = Omit<typeof seats.$inferSelect, "developerId" | "id"> & { developerId: string };
