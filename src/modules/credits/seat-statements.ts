import { sql, type SQL } from "drizzle-orm";
import { hotStatement } from "../../db";
import { leaseHoldsTemplate } from "../cluster/lease";

const placeholder = sql.placeholder;

/**
 * A seat's ledger rows (buy_in, cashout) name the seat by its key (seat_seq = seats.seq: a bigint,
 * migration 0030) and not its bot and table: those are the seat's own (seats.bot_id,
 * seats.table_id), read through it (credits/transactions.ts), ~85 bytes less a row (issue 35). A cashout still names its match: a seat that leaves a waiting table is
 * paid with no match while its table may play one later, and nothing else stored tells the two
 * apart (match_players is written at the match's end only, none for an aborted match).
 */

/** The id of the ledger row a statement wrote (none is stored: credits/transaction-id.ts). */
const RECORDED_ID = sql.raw("transaction_id(seq, created_at) as id");

/**
 * The buy-in in one statement. The bot's row is locked (FOR SHARE) and must not be retired, nor
 * still seated at a duplicate pair's copy 2 (its copy 1 over, it still plays: a bot sits at one
 * table, or one pair, at a time); the seat is opened from the debit (by the table module's SQL,
 * `seatRows.open`), the buy_in row from both (see buyInInDb). `copy` is the seat's copy (1, or 2 at
 * a pair's copy-2 table: buyInPairInDb).
 */
function buyInStatement(fenceHolds: SQL, seatRows: SeatRowsSql) {
  return hotStatement<{ balance: string | null; recorded: string | null; seat: string | null }>(sql`with seated_bot as (
      select retired_at from bots where id = ${placeholder("botId")}::text for share
    ), debited as (
      update developers set balance = balance - ${placeholder("amount")}::bigint
      where id = ${placeholder("developerId")} and balance >= ${placeholder("amount")}::bigint and ${fenceHolds}
        and not exists (select 1 from seated_bot where retired_at is not null)
        and not exists (select 1 from seats where bot_id = ${placeholder("botId")}::text and status = 'open' and copy = 2)
      returning balance
    ), opened as (${seatRows.open}), recorded as (
      insert into transactions (developer_id, type, amount, balance_after, seat_seq, created_at)
      select ${placeholder("developerId")}, 'buy_in', -${placeholder("amount")}::bigint, debited.balance,
             opened.seq, ${placeholder("at")}::timestamptz
      from debited left join opened on true returning ${RECORDED_ID}
    )
    select (select balance from debited)::text as balance, (select id from recorded) as recorded, (select seq from opened)::text as seat`);
}

/** The cashout in one statement: close the open seat (the table module's SQL, `seatRows.close`), credit its chips, write the cashout row. */
function cashoutStatement(fenceHolds: SQL, seatRows: SeatRowsSql) {
  return hotStatement<{ balance: string | null; recorded: string | null }>(sql`with closed as (${seatRows.close(fenceHolds)}), credited as (
      update developers set balance = balance + ${placeholder("chips")}::bigint
      where id = ${placeholder("developerId")} and exists (select 1 from closed) returning balance
    ), recorded as (
      insert into transactions (developer_id, type, amount, balance_after, match_id, seat_seq, created_at)
      select ${placeholder("developerId")}, 'cashout', ${placeholder("chips")}::bigint, credited.balance,
             ${placeholder("matchId")}::text, ${placeholder("seatId")}::bigint, ${placeholder("at")}::timestamptz
      from closed, credited returning ${RECORDED_ID}
    )
    select (select balance from credited)::text as balance, (select id from recorded) as recorded`);
}

/**
 * A seat's rows are the table module's (tables/seat-rows.ts): it gives the SQL that opens a seat
 * and the SQL that closes one, and the ledger runs each inside its own guarded statement, so the
 * seat and the money move in ONE statement (one transaction), under the same lease fence: no crash
 * leaves a debit without its seat or a seat without its debit.
 */
export interface SeatRowsSql {
  /**
   * A CTE body inserting the seat from the `debited` row (none when the debit was refused), from the
   * placeholders developerId, botId, tableId, position, amount, at and copy; `returning seq` (the
   * seat's key, which its ledger rows name).
   * A seat the unique indexes refuse is not inserted, and the buy_in row then has no seat, which the
   * transactions_buy_in_has_seat constraint forbids: the statement fails, the debit with it.
   */
  open: SQL;
  /**
   * A CTE body closing the open seat seatId of developerId, paid chips at `at`, only where
   * `fenceHolds`; `returning seq` (nothing: not open, or fenced, and nothing is credited).
   */
  close(fenceHolds: SQL): SQL;
}

export interface LedgerStatements {
  buyInFenced: ReturnType<typeof buyInStatement>;
  buyInUnfenced: ReturnType<typeof buyInStatement>;
  cashoutFenced: ReturnType<typeof cashoutStatement>;
  cashoutUnfenced: ReturnType<typeof cashoutStatement>;
}

/** The four statements of a seat ledger, each prepared once. */
export function ledgerStatements(seatRows: SeatRowsSql): LedgerStatements {
  return {
    buyInFenced: buyInStatement(leaseHoldsTemplate(), seatRows),
    buyInUnfenced: buyInStatement(sql`true`, seatRows),
    cashoutFenced: cashoutStatement(leaseHoldsTemplate(), seatRows),
    cashoutUnfenced: cashoutStatement(sql`true`, seatRows),
  };
}
