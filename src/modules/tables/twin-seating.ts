/**
 * Who sits at a duplicate pair's two twin tables (docs/FAIRNESS.md, "Duplicate matches"). A join
 * at either copy seats the bot at both (copy 2 at the other position), its two buy-ins in one
 * transaction; a leave or a close of a waiting pair refunds both seats together; the pair fills,
 * and starts, as one. Only bots the service runs (built-ins and hosted bots) sit there: a remote
 * bot is one socket, it cannot be two copies that know nothing of each other.
 */
import { errors } from "../../lib/errors";
import { invariant } from "../../lib/assert";
import type { BotRecord } from "../bots/service";
import type { SeatCashout } from "../credits/ledger";
import { assertCashout, chipsOnTable, freePosition, mirroredPosition, newSeatRuntime, type TableRuntime } from "./runtime";
import { endWaitingTables, hostUnavailable, unseatBot, waitingCashout, type Seating } from "./seating";
import { refuseIfPrivate, seatView, type ClosedTable, type LeaveResult, type SeatView } from "./views";

/** A duplicate pair's tables: copy 1's, then copy 2's. */
export type TwinTables = [TableRuntime, TableRuntime];

/** The refusal of a remote bot at a duplicate table (409 REMOTE_BOT_AT_DUPLICATE_TABLE). */
export function refuseRemoteBot(botId: string) {
  return errors.conflict(
    "REMOTE_BOT_AT_DUPLICATE_TABLE",
    "A duplicate match seats only bots the service runs (built-ins and hosted bots): its two copies must know nothing of each other, and a remote bot is one socket. Upload its code (PUT /api/bots/{botId}/code) to play here",
    { botId },
  );
}

/**
 * Seats a bot at both copies (`runsHere`: a built-in, or a hosted bot). The answer is its seat at
 * the table the join named. Private as any duplicate table (only its creator's bots), except a
 * ladder pair, which the matchmaker fills with hosted bots.
 */
export async function seatPair(seating: Seating, copies: TableRuntime[], addressed: TableRuntime, developerId: string, bot: BotRecord, runsHere: boolean): Promise<SeatView> {
  if (copies.length !== 2) throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${addressed.status}`);
  const pair = copies as TwinTables;
  const [first, second] = pair;
  const { botId } = bot;
  // The ladder's and a hosted round robin's pairs seat other developers' bots the service runs.
  if (first.createdBy !== developerId && !((first.ladder !== null || first.config.tournamentId !== undefined) && runsHere)) refuseIfPrivate(first.config);
  if (!runsHere) throw refuseRemoteBot(botId);
  if (seating.tableOfBot.has(botId)) throw errors.conflict("BOT_ALREADY_SEATED", "This bot already sits at a table", { tableId: seating.tableOfBot.get(botId) });
  const position = freePosition(first);
  if (position === null) throw errors.conflict("TABLE_FULL", "Every seat at this table is taken");
  if (first.status !== "waiting" || second.status !== "waiting") throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${addressed.status}`);
  const mirrored = mirroredPosition(first, position);
  invariant(!second.seats.has(mirrored) && !second.reserved.has(mirrored), `twin ${second.tableId}: seat ${mirrored} is free as seat ${position} of ${first.tableId} is`);
  first.hold(position);
  second.hold(mirrored);
  try {
    const fence = seating.fence();
    const { buyIn } = first.config;
    const bought = await seating.accounts.buyInPair(developerId, buyIn, [
      { botId, tableId: first.tableId, position, fence },
      { botId, tableId: second.tableId, position: mirrored, fence },
    ]);
    const seats = pair.map((table, copy) => {
      const seat = newSeatRuntime({
        seatId: bought.seatIds[copy],
        position: copy === 0 ? position : mirrored,
        botId,
        developerId,
        strategy: bot.strategy,
        buyIn,
        chips: buyIn,
        timeBankMs: seating.initialTimeBankMs,
      });
      table.seat(seat);
      // Chips in seats + balances = grants: each copy's seat holds exactly the buy-in its own row debited.
      invariant(chipsOnTable(table) === table.seats.size * buyIn, `table ${table.tableId}: seat ${seat.seatId} holds its buy-in of ${buyIn}`);
      return seat;
    });
    seating.tableOfBot.set(botId, first.tableId);
    for (const table of pair) seating.tell(table, { type: "SEATS_CHANGED" });
    return seatView(seats[addressed === first ? 0 : 1]);
  } finally {
    first.release(position);
    second.release(mirrored);
  }
}

/**
 * Takes a bot off a pair: waiting, both seats are refunded in one transaction; running, it folds
 * from now on at every copy still playing (each cashes it out after its current hand). `copies`:
 * the pair's tables this node still hosts (a copy whose match ended is gone).
 */
export async function unseatPair(seating: Seating, copies: TableRuntime[], addressed: TableRuntime, developerId: string, botId: string): Promise<LeaveResult> {
  if (addressed.status === "running") {
    let answer: LeaveResult | null = null;
    for (const table of copies) {
      if (table.status !== "running" || ![...table.seats.values()].some((s) => s.botId === botId)) continue;
      const left = await unseatBot(seating, table, developerId, botId);
      if (table === addressed) answer = left;
    }
    if (answer === null) throw errors.notFound("Seat of this bot at this table");
    return answer;
  }
  if (copies.length !== 2 || copies.some((t) => t.status !== "waiting")) throw errors.conflict("TABLE_NOT_JOINABLE", `The table is ${addressed.status}`);
  const seats = copies.map((table) => [...table.seats.values()].find((s) => s.botId === botId));
  if (!seats[0] || !seats[1]) throw errors.notFound("Seat of this bot at this table");
  await refundPairSeats(seating, copies as TwinTables, botId);
  return { tableId: addressed.tableId, botId, status: "left" as const, cashout: seats[copies.indexOf(addressed)]!.chips };
}

/** DELETE /api/tables/:tableId of either copy: the creator closes the waiting pair; every bot's two seats refunded together. */
export async function closeWaitingPair(seating: Seating, copies: TableRuntime[], addressed: TableRuntime, developerId: string): Promise<ClosedTable> {
  if (addressed.createdBy !== developerId) throw errors.forbidden("Only the table's creator may delete it");
  const pair = copies as TwinTables;
  if (copies.length !== 2 || pair.some((t) => t.status !== "waiting")) throw errors.conflict("TABLE_NOT_WAITING", `The table is ${addressed.status}: only a waiting table can be deleted`, { status: addressed.status });
  const refunds: ClosedTable["refunds"] = [];
  // Seats first, the tables last: a crash in between leaves a waiting pair with fewer seats (resumed), never a closed one with open seats.
  for (const seat of [...addressed.seats.values()]) refunds.push({ botId: seat.botId, cashout: await refundPairSeats(seating, pair, seat.botId) });
  if (!(await endWaitingTables(seating, pair, "closed"))) throw hostUnavailable();
  return { tableId: addressed.tableId, status: "closed" as const, refunds };
}

/** Refunds one bot's two seats of a waiting pair in one transaction; returns one seat's cashout (each is the buy-in). */
async function refundPairSeats(seating: Seating, pair: TwinTables, botId: string): Promise<number> {
  const seats = pair.map((table) => {
    const seat = [...table.seats.values()].find((s) => s.botId === botId)!;
    assertCashout(table, seat);
    return { table, seat, chips: waitingCashout(table, seat) };
  });
  const { developerId } = seats[0].seat;
  const cashouts = seats.map(({ table, seat, chips }): SeatCashout => ({ seatId: seat.seatId, chips, refs: { botId, tableId: table.tableId, fence: seating.fence() } }));
  await seating.accounts.cashoutPair(developerId, cashouts as [SeatCashout, SeatCashout]);
  for (const { table, seat } of seats) table.unseat(seat.position);
  seating.tableOfBot.delete(botId);
  return seats[0].chips;
}
