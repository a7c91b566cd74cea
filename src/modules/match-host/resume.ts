import { and, eq, isNull } from "drizzle-orm";
import { anyOf, type Db } from "../../db/index";
import { bots, matches, seats, tables } from "../../db/schema";
import type { BuiltInStrategy } from "../bots/model";
import type { DeckSeal } from "./deck-seal";
import { recordedHands } from "./hand-store";
import { selectMatches } from "./match-rows";
import { decodeRecorded, matchDealOf } from "./recorded-hands";
import type { TableRow } from "../../db/table-config";
import { SEAT_COLUMNS, type SeatRow } from "../../db/seat-developer";
import { newSeatRuntime, TableRuntime, type DepartedSeat, type SeatRuntime } from "../tables/runtime";

/** A duplicate table of the one-match model (before issue 32: one match, each deal twice): never resumed, aborted instead. */
export function isLegacyDuplicate(row: TableRow): boolean {
  return row.config.duplicate === true && row.twinId === null;
}

/**
 * Rebuilds tables a node takes over (its own after a restart, or a dead node's) from what is
 * recorded. A waiting table keeps its seats. A running match resumes from the stacks after its
 * last recorded hand, same matchId. Every hand number its host had reserved but not recorded is
 * void: those hands may have been dealt and shown (even finished, with their pots awarded), so
 * none is dealt again, their chips are back in the stacks of the last recorded hand, and the
 * resumption names them (match_resumed, the fairness record, the replay page).
 */
export async function tablesToResume(db: Db, rows: TableRow[], timeBankMs: number, deckSeal: DeckSeal): Promise<TableRuntime[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const seatRows = await db.select(SEAT_COLUMNS).from(seats).where(anyOf(seats.tableId, ids));
  const botRows = await db.select({ id: bots.id, strategy: bots.strategy }).from(bots).where(anyOf(bots.id, [...new Set(seatRows.map((s) => s.botId!))]));
  const strategyOf = new Map(botRows.map((b) => [b.id, b.strategy as BuiltInStrategy | null]));
  const seatOf = (row: SeatRow): SeatRuntime =>
    newSeatRuntime({
      seatId: row.seq,
      position: row.position!,
      botId: row.botId!,
      developerId: row.developerId,
      strategy: strategyOf.get(row.botId!) ?? null,
      buyIn: row.buyIn,
      chips: row.chips,
      timeBankMs,
      leaving: row.leaving,
      // A hosted seat plays on with the version its match pinned (reopened in a fresh context).
      codeVersion: row.codeVersion,
    });
  const result: TableRuntime[] = [];
  const recorded = new Map<TableRuntime, number[]>();
  for (const row of rows) {
    const twin = row.twinId === null ? null : { copy: row.copy as 1 | 2, tableId: row.twinId, matchId: null };
    const table = new TableRuntime(row.id, row.createdBy, row.createdAt, row.config, row.ladder, twin);
    for (const seat of seatRows.filter((s) => s.tableId === row.id && s.status === "open")) table.seat(seatOf(seat));
    if (row.status === "running" && row.matchId) recorded.set(table, await resumeMatchState(db, table, row.matchId, seatRows.filter((s) => s.tableId === row.id), seatOf, deckSeal));
    result.push(table);
  }
  alignTwins(recorded);
  return result;
}

/**
 * The two copies of a duplicate pair resumed together go on from the same hand number (the later
 * of their first undealt numbers) with the button at the same seat, so copy 2's hand n stays copy
 * 1's hand-n deck dealt to the same seats (each bot the other's cards); the numbers a copy skips are
 * voided like any other reserved and unrecorded number.
 */
function alignTwins(recorded: Map<TableRuntime, number[]>): void {
  const byId = new Map([...recorded.keys()].map((table) => [table.tableId, table]));
  for (const [table, numbers] of recorded) {
    const twin = table.twin ? byId.get(table.twin.tableId) : undefined;
    if (!twin) continue;
    const handNumber = Math.max(table.handNumber, twin.handNumber);
    if (table.handNumber < handNumber) table.voidUnrecorded(numbers, handNumber);
    // Copy 1's button leads: its last recorded hand's, from which the next hand's moves in both.
    if (table.twin!.copy === 2) table.followButton(twin.buttonPosition);
  }
}

/** The running match's state from its rows; returns the numbers of its recorded hands. */
async function resumeMatchState(db: Db, table: TableRuntime, matchId: string, tableSeats: SeatRow[], seatOf: (row: SeatRow) => SeatRuntime, deckSeal: DeckSeal): Promise<number[]> {
  const [match] = await selectMatches(db).where(eq(matches.id, matchId));
  const startedAt = match.startedAt.getTime();
  const deckSecret = await deckSeal.secretOf(match);
  // Seats that left or busted during the match were cashed out then: they are its departed players.
  const departed: DepartedSeat[] = tableSeats
    .filter((row) => row.status === "closed" && row.closedAt && row.closedAt.getTime() >= startedAt)
    .map((row) => ({ ...seatOf(row), finalChips: row.cashout ?? 0 }));
  // A match started before its seats were recorded with it (issue 35) gets them now: its hands are stored by seat.
  if (match.seatBots === null) {
    match.seatBots = Array.from({ length: table.config.maxPlayers }, (_, position) => [...table.seats.values(), ...departed].find((s) => s.position === position)?.botId ?? null);
    await db.update(matches).set({ seatBots: match.seatBots }).where(and(eq(matches.id, matchId), isNull(matches.seatBots)));
  }
  const recorded = decodeRecorded(matchDealOf(match, deckSecret), await recordedHands(db, matchId));
  // Its lifecycle resumes it for having a match (table-machine.ts, `resuming`): the status follows.
  table.resumeFrom({
    matchId,
    twinMatchId: match.twinMatchId,
    startedAt,
    deckSecret,
    deckCommitment: match.deckCommitment,
    handsReserved: match.handsReserved,
    departed,
    recorded: recorded.map((hand) => ({ button: hand.button, players: hand.players, winners: new Set(hand.pots.flatMap((pot) => pot.winners)) })),
  });
  const numbers = recorded.map((h) => h.handNumber);
  table.voidUnrecorded(numbers, firstUndealtNumber(recorded.at(-1)?.handNumber ?? 0, match.handsReserved) - 1);
  return numbers;
}

/**
 * Where a resumed match deals from: after every number that may have been dealt (the last
 * recorded, or any reserved since: before the reservations, only the hand in flight, whose
 * number is the next).
 */
export function firstUndealtNumber(lastRecorded: number, reserved: number): number {
  return Math.max(lastRecorded + 1, reserved) + 1;
}

