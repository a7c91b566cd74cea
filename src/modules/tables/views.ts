import { anyOf, type Db } from "../../db";
import { matches, type LadderFormat, type TableConfig, type TableStatus } from "../../db/schema";
import type { TableRow } from "../../db/table-config";
import { errors } from "../../lib/errors";
import { openSeatsOf } from "./seat-rows";
import { handsPlayedAt, isSeeded, publicConfig, seatsInOrder, type SeatRuntime, type TableRuntime } from "./runtime";

/** POST /api/tables: any part of the config, the rest from the defaults (CreateTableBody bounds each field). */
export type CreateTableInput = Partial<TableConfig>;

export interface SeatView {
  seat: number;
  botId: string;
  chips: number;
  leaving: boolean;
}

/** DELETE /api/tables/:tableId's answer: what each seated bot got back. */
export interface ClosedTable {
  tableId: string;
  status: "closed";
  refunds: Array<{ botId: string; cashout: number }>;
}

export type LeaveResult = { tableId: string; botId: string; status: "left" | "leaving"; cashout: number | null };

export { isLive } from "../../db/schema";

export interface TableView {
  tableId: string;
  /** Without `seed`, except in the creator's own read of the table. */
  config: TableConfig;
  /** Dealt from a seed: private to its creator's bots, never ranked. */
  seeded: boolean;
  /** While a match runs: SHA-256 (hex) of the secret its decks derive from, revealed after the match. */
  deckCommitment: string | null;
  status: TableStatus;
  seats: SeatView[];
  matchId: string | null;
  handsPlayed: number;
  createdAt: string;
  /** A ladder table (its format), null for one a developer made. */
  ladder: LadderFormat | null;
  /** A copy of a duplicate pair: the other copy's table (null for every other table). */
  twinTableId: string | null;
  /** Which copy of a duplicate pair this table plays (1, or 2: the seats swapped); null for every other table. */
  copy: 1 | 2 | null;
}

/** A hosted table as anyone (or its creator, `viewerId`) may see it. */
export function viewOfRuntime(table: TableRuntime, viewerId: string | null): TableView {
  return {
    tableId: table.tableId,
    config: configFor(table.config, table.createdBy, viewerId),
    seeded: isSeeded(table.config),
    deckCommitment: table.status === "running" ? table.deckCommitment : null,
    status: table.status,
    seats: seatsInOrder(table).map(seatView),
    matchId: table.matchId,
    handsPlayed: handsPlayedAt(table),
    createdAt: table.createdAt.toISOString(),
    ladder: table.ladder,
    twinTableId: table.twin?.tableId ?? null,
    copy: table.twin?.copy ?? null,
  };
}

/** Hands recorded per match (the match host's store counts them): what a table hosted elsewhere has played. */
export type HandsRecorded = (matchIds: string[]) => Promise<Map<string, number>>;

/** Tables from their rows: live state for those hosted here, the stored state for the others. */
export async function viewsOfRows(
  db: Db,
  rows: TableRow[],
  viewerId: string | null,
  hostedHere: (tableId: string) => TableRuntime | undefined,
  handsRecordedOf: HandsRecorded,
): Promise<TableView[]> {
  const elsewhere = rows.filter((r) => !hostedHere(r.id));
  const open = await openSeatsOf(db, elsewhere.map((r) => r.id));
  const runningMatches = elsewhere.filter((r) => r.status === "running" && r.matchId).map((r) => r.matchId!);
  const commitments = runningMatches.length
    ? await db.select({ id: matches.id, deckCommitment: matches.deckCommitment }).from(matches).where(anyOf(matches.id, runningMatches))
    : [];
  const handsRecorded = await handsRecordedOf(elsewhere.flatMap((r) => (r.matchId ? [r.matchId] : [])));
  return rows.map((row) => {
    const hosted = hostedHere(row.id);
    if (hosted) return viewOfRuntime(hosted, viewerId);
    return {
      tableId: row.id,
      config: configFor(row.config, row.createdBy, viewerId),
      seeded: isSeeded(row.config),
      deckCommitment: row.status === "running" ? (commitments.find((m) => m.id === row.matchId)?.deckCommitment ?? null) : null,
      status: row.status,
      seats: open
        .filter((s) => s.tableId === row.id)
        .sort((a, b) => a.position! - b.position!)
        .map((s) => ({ seat: s.position!, botId: s.botId!, chips: s.chips, leaving: s.leaving })),
      matchId: row.matchId,
      handsPlayed: row.matchId ? (handsRecorded.get(row.matchId) ?? 0) : 0,
      createdAt: row.createdAt.toISOString(),
      ladder: row.ladder,
      twinTableId: row.twinId,
      copy: row.copy as 1 | 2 | null,
    };
  });
}

/** Tables only their creator's bots may join: nobody else may play cards someone can know in advance. */
export function refuseIfPrivate(config: TableConfig): void {
  if (isSeeded(config)) throw errors.forbidden("This table deals from a seed: only its creator's bots may join", "SEEDED_TABLE_PRIVATE");
  if (config.duplicate) {
    throw errors.forbidden("A duplicate table is private to its creator's bots (duplicate matches between developers are the ladder's)", "DUPLICATE_TABLE_PRIVATE");
  }
}

/** A challenge's or a tournament's table: seats are taken, left and the table closed only through them (competitions/). */
export function isCompetitionTable(config: TableConfig): boolean {
  return config.unrated === true || config.tournamentId !== undefined;
}

export function refuseUnlessViaCompetition(config: TableConfig, viaCompetition: boolean | undefined): void {
  if (isCompetitionTable(config) && !viaCompetition) {
    const where = config.tournamentId ? `tournament ${config.tournamentId} (POST or DELETE /api/tournaments/${config.tournamentId}/entries)` : "a challenge (POST /api/challenges)";
    throw errors.conflict("COMPETITION_TABLE", `This table plays ${where}: its seats are taken and given up only through it`, { tournamentId: config.tournamentId ?? null });
  }
}

function configFor(config: TableConfig, createdBy: string, viewerId: string | null): TableConfig {
  return viewerId === createdBy ? config : publicConfig(config);
}

export function seatView(seat: SeatRuntime): SeatView {
  return { seat: seat.position, botId: seat.botId, chips: seat.chips, leaving: seat.leaving };
}

/** What a shutdown did to a table, in words an operator reads in the log. */
export function shutdownReport(table: TableRuntime, stoppedAtBoundary: boolean): string {
  const hands = handsPlayedAt(table);
  const where = `table ${table.tableId}`;
  switch (table.status) {
    case "running":
      return stoppedAtBoundary
        ? `${where}: match ${table.matchId} paused after ${hands} hands; chips stay in the seats and the match resumes (on another node, or here at the next start)`
        : `${where}: match ${table.matchId} stopped during a hand after ${hands} complete hands; that hand is void at resumption (its chips go back) and the match resumes (on another node, or here at the next start)`;
    case "waiting":
      return `${where}: waiting, ${table.seats.size}/${table.config.maxPlayers} seats taken; kept as it is (the buy-ins stay in the seats)`;
    case "finished":
      return `${where}: match ${table.matchId} finished after ${hands} hands; paid out`;
    default:
      return `${where}: ${table.status}`;
  }
}
