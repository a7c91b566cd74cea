import { leaseHolds, type FenceToken } from "../cluster/lease";
import { and, eq, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { developers, seats, transactions, type TransactionType } from "../../db/schema";
import { queryRows, violatesConstraint, type Db, type Queryable, type Tx } from "../../db";
import { retryTransient, type RetryOptions } from "../../db/retry";
import { invariant } from "../../lib/assert";
import { claimableBefore } from "./faucet";
import { AppError, errors } from "../../lib/errors";
import { transactionIdColumn } from "./transaction-id";
import { ledgerStatements, type LedgerStatements, type SeatRowsSql } from "./seat-statements";

export type { SeatRowsSql } from "./seat-statements";

/**
 * The SQL half of the ledger: every balance change and its transaction row in one database
 * transaction, guarded in SQL so that correctness never depends on running a single process.
 * Callers may pass an open transaction; the work then joins it.
 */

export interface LedgerRefs {
  /** The seat's bot and table: stored on the seat (a buy-in opens it), not on its ledger rows (seat-statements.ts). */
  botId?: string | null;
  tableId?: string | null;
  /** A cashout's match (none: the seat left before any match), stored on the cashout row. */
  matchId?: string | null;
  /** Seat moves of a table: land only while the hosting node's lease stands (fencing). */
  fence?: FenceToken | null;
}

/** Where a buy-in's chips sit: the seat number at the table (unique among its open seats). */
export interface SeatRefs extends LedgerRefs {
  position?: number | null;
}

export interface FaucetOutcome {
  granted: boolean;
  balance: number;
  lastFaucetAt: Date | null;
}

export interface BuyInOutcome {
  balance: number;
  transactionId: string;
  /** The seat's key (seats.seq), which its ledger rows name. */
  seatId: number;
}

export interface CashoutOutcome {
  balance: number;
  transactionId: string;
}

async function appendTransaction(
  tx: Tx,
  row: { developerId: string; type: TransactionType; amount: number; balanceAfter: number },
  now: Date,
): Promise<string> {
  const [written] = await tx
    .insert(transactions)
    .values({ developerId: row.developerId, type: row.type, amount: row.amount, balanceAfter: row.balanceAfter, createdAt: now })
    .returning({ id: transactionIdColumn });
  return written.id;
}

/** Grants the faucet only when the last claim is older than the cooldown — checked by the UPDATE itself. */
export async function claimFaucetInDb(
  db: Queryable,
  developerId: string,
  amount: number,
  cooldownMs: number,
  now: Date,
): Promise<FaucetOutcome> {
  invariant(Number.isSafeInteger(amount) && amount > 0, "faucet amount is a positive integer");
  const lastClaimBefore = claimableBefore(now, cooldownMs);
  return db.transaction(async (tx) => {
    const granted = await tx
      .update(developers)
      .set({ balance: sql`${developers.balance} + ${amount}`, lastFaucetAt: now })
      .where(
        and(
          eq(developers.id, developerId),
          or(isNull(developers.lastFaucetAt), lte(developers.lastFaucetAt, lastClaimBefore)),
        ),
      )
      .returning({ balance: developers.balance });
    if (granted.length === 1) {
      const balance = granted[0].balance;
      await appendTransaction(tx, { developerId, type: "faucet", amount, balanceAfter: balance }, now);
      return { granted: true, balance, lastFaucetAt: now };
    }
    const current = await readAccount(tx, developerId);
    return { granted: false, balance: current.balance, lastFaucetAt: current.lastFaucetAt };
  });
}

/**
 * Deducts the buy-in, opens the seat holding those chips and writes the buy_in row, in ONE
 * guarded statement (atomic on its own). When a unique index refuses the seat, the buy_in row
 * would have no seat, which the transactions_buy_in_has_seat constraint forbids: the whole
 * statement fails and the debit with it. The bot's row is locked (FOR SHARE) and must not be
 * retired: a retirement locks it too, so one of the two sees the other.
 */
async function buyInInDb(
  statements: LedgerStatements,
  db: Queryable,
  developerId: string,
  amount: number,
  refs: SeatRefs,
  now: Date,
): Promise<BuyInOutcome> {
  invariant(Number.isSafeInteger(amount) && amount > 0, "buy-in is a positive integer");
  const values = buyInValues(developerId, amount, refs, 1, now);
  let row: { balance: string | null; recorded: string | null; seat: string | null } | undefined;
  try {
    // One statement on its own: if Postgres picks it as a deadlock victim, it is simply run again.
    [row] = await retryTransient(() => buyInStatementFor(statements, refs)(db, values), NOT_AFTER_LOST_CONNECTION);
  } catch (error) {
    throw await buyInRefusal(db, error, developerId, amount, refs);
  }
  if (row!.balance === null) throw await buyInRefusal(db, null, developerId, amount, refs);
  const balance = Number(row!.balance);
  invariant(balance >= 0, "balance never goes below zero");
  return { balance, ...boughtSeat(row!) };
}

/** What a buy-in statement that debited wrote: its ledger row's id and the seat it opened. */
function boughtSeat(row: { recorded: string | null; seat: string | null }): { transactionId: string; seatId: number } {
  invariant(row.seat !== null && row.recorded !== null, "a buy-in that debited opened its seat and wrote its row");
  return { transactionId: row.recorded, seatId: Number(row.seat) };
}

/** Where the two seats of a duplicate pair go: copy 1's table and position, then copy 2's. */
export type PairSeatRefs = [SeatRefs, SeatRefs];

export interface PairBuyInOutcome {
  balance: number;
  /** Copy 1's seat, then copy 2's. */
  seatIds: [number, number];
  transactionIds: [string, string];
}

/**
 * A bot's buy-in at both copies of a duplicate pair, in ONE transaction: two buy_in rows, two seats
 * (copy 1's, then copy 2's), each by the guarded buy-in statement; if either is refused (balance,
 * fence, a seat taken, the bot seated elsewhere) the transaction is rolled back and nothing moved.
 * A copy-2 seat is opened nowhere else, so the guard of every buy-in ("no open copy-2 seat of this
 * bot") is race-free: the only statement that could add one also opens a copy-1 seat, which the
 * unique index (bot, copy) lets only one transaction hold.
 */
async function buyInPairInDb(statements: LedgerStatements, db: Db, developerId: string, amount: number, refs: PairSeatRefs, now: Date): Promise<PairBuyInOutcome> {
  invariant(Number.isSafeInteger(amount) && amount > 0, "buy-in is a positive integer");
  invariant(refs[0].botId && refs[0].botId === refs[1].botId, "a pair's two seats are one bot's");
  const values = refs.map((r, i) => buyInValues(developerId, amount, r, (i + 1) as 1 | 2, now));
  class Refused extends Error {
    constructor(readonly copy: number) {
      super("buy-in refused");
    }
  }
  let balance: number;
  const recorded: [string, string] = ["", ""];
  const seatIds: [number, number] = [0, 0];
  try {
    balance = await retryTransient(
      () =>
        db.transaction(async (tx) => {
          let last = 0;
          for (const [i, ref] of refs.entries()) {
            const [row] = await buyInStatementFor(statements, ref)(tx, values[i]);
            if (row.balance === null) throw new Refused(i);
            last = Number(row.balance);
            ({ transactionId: recorded[i], seatId: seatIds[i] } = boughtSeat(row));
          }
          return last;
        }),
      NOT_AFTER_LOST_CONNECTION,
    );
  } catch (error) {
    const copy = error instanceof Refused ? error.copy : 0;
    throw await buyInRefusal(db, error instanceof Refused ? null : error, developerId, amount * (copy + 1), refs[copy]);
  }
  invariant(balance >= 0, "balance never goes below zero");
  return { balance, seatIds, transactionIds: recorded };
}

function buyInValues(developerId: string, amount: number, refs: SeatRefs, copy: 1 | 2, now: Date) {
  return {
    ...fenceValues(refs),
    developerId,
    amount,
    at: now.toISOString(),
    botId: refs.botId ?? null,
    position: refs.position ?? null,
    copy,
  };
}

const buyInStatementFor = (statements: LedgerStatements, refs: SeatRefs) => (refs.fence ? statements.buyInFenced : statements.buyInUnfenced);

/**
 * Why a buy-in statement moved nothing (`error`: it failed; null: its guard refused), as the
 * error the caller answers: a seat refused by a unique index, a lost lease, a retired bot, a bot
 * still seated at a duplicate pair's copy 2, or the balance.
 */
async function buyInRefusal(db: Queryable, error: unknown, developerId: string, amount: number, refs: SeatRefs): Promise<unknown> {
  const botId = refs.botId ?? null;
  if (error !== null) {
    if (!violatesConstraint(error, "transactions_buy_in_has_seat")) return error;
    if (botId && (await botSeated(db, botId))) return errors.conflict("BOT_ALREADY_SEATED", "This bot already sits at a table", { botId });
    return errors.conflict("TABLE_FULL", "That seat was just taken", { position: refs.position ?? null });
  }
  await refuseIfFenced(db, refs.fence, refs.tableId);
  if (botId) await refuseIfBotRetired(db, botId);
  if (botId && (await botSeated(db, botId, 2))) {
    return errors.conflict("BOT_ALREADY_SEATED", "This bot still plays the second copy of a duplicate match", { botId });
  }
  const current = await readAccount(db, developerId);
  return errors.insufficientBalance(current.balance, amount);
}

/** Whether the bot holds an open seat (at copy `copy` of a duplicate pair only, when given). */
async function botSeated(db: Queryable, botId: string, copy?: 1 | 2): Promise<boolean> {
  const open = and(eq(seats.botId, botId), eq(seats.status, "open"), copy === undefined ? undefined : eq(seats.copy, copy));
  return (await db.select({ seq: seats.seq }).from(seats).where(open).limit(1)).length > 0;
}

/** Closes an open seat and credits its remaining chips with a cashout row, atomically. Once per seat. */
function cashoutInDb(
  statements: LedgerStatements,
  db: Queryable,
  developerId: string,
  seatId: number,
  chips: number,
  refs: LedgerRefs,
  now: Date,
): Promise<CashoutOutcome> {
  // On its own (not inside a caller's transaction) a deadlock victim can simply run again.
  return retryTransient(() => cashoutWithin(statements, db, developerId, seatId, chips, refs, now), NOT_AFTER_LOST_CONNECTION);
}

/** A seat to cash out: its id, the chips it is paid, and its references. */
export interface SeatCashout {
  seatId: number;
  chips: number;
  refs: LedgerRefs;
}

/**
 * The two seats of one bot at a waiting duplicate pair, refunded together in ONE transaction (a
 * leave or a close of the pair): either both are cashed out or neither.
 */
function cashoutPairInDb(statements: LedgerStatements, db: Db, developerId: string, pair: [SeatCashout, SeatCashout], now: Date): Promise<CashoutOutcome[]> {
  return retryTransient(
    () =>
      db.transaction(async (tx) => {
        const outcomes: CashoutOutcome[] = [];
        for (const seat of pair) outcomes.push(await cashoutWithin(statements, tx, developerId, seat.seatId, seat.chips, seat.refs, now));
        return outcomes;
      }),
    NOT_AFTER_LOST_CONNECTION,
  );
}

/**
 * One statement closes the seat, credits the chips and writes the cashout row — atomic on its
 * own, so callers holding a transaction (match ends, hand batches) need no savepoint per seat.
 */
async function cashoutWithin(
  statements: LedgerStatements,
  db: Queryable,
  developerId: string,
  seatId: number,
  chips: number,
  refs: LedgerRefs,
  now: Date,
): Promise<CashoutOutcome> {
  invariant(Number.isSafeInteger(chips) && chips >= 0, "cashout is a non-negative integer");
  const at = now.toISOString();
  const statement = refs.fence ? statements.cashoutFenced : statements.cashoutUnfenced;
  const [row] = await statement(db, { ...fenceValues(refs), developerId, seatId, chips, at, matchId: refs.matchId ?? null });
  if (row.balance === null) {
    await refuseIfFenced(db, refs.fence, refs.tableId);
    throw new AppError(409, "CONFLICT", "The seat is not open (already cashed out?)", { seatId });
  }
  return { balance: Number(row.balance), transactionId: row.recorded! };
}

/** A ledger write is not idempotent (a lost COMMIT answer may hide one that happened): only conflicts, which Postgres rolled back, are run again. */
const NOT_AFTER_LOST_CONNECTION: RetryOptions = { afterLostConnection: false };

/** The values of a statement's fence placeholders (unused by the unfenced variant). */
const fenceValues = (refs: LedgerRefs) => ({ fenceHost: refs.fence?.hostId ?? null, fenceEpoch: refs.fence?.epoch ?? null, tableId: refs.tableId ?? null });

/**
 * The ledger's seat operations around the table module's seat rows (each statement prepared once):
 * buy-ins (one seat, or a duplicate pair's two in one transaction) and cashouts (on their own, a
 * pair's two together, or `cashoutWithin` a caller's transaction).
 */
export function seatLedger(seatRows: SeatRowsSql) {
  const statements = ledgerStatements(seatRows);
  return {
    buyInInDb: (db: Queryable, developerId: string, amount: number, refs: SeatRefs, now: Date) => buyInInDb(statements, db, developerId, amount, refs, now),
    buyInPairInDb: (db: Db, developerId: string, amount: number, refs: PairSeatRefs, now: Date) => buyInPairInDb(statements, db, developerId, amount, refs, now),
    cashoutInDb: (db: Queryable, developerId: string, seatId: number, chips: number, refs: LedgerRefs, now: Date) => cashoutInDb(statements, db, developerId, seatId, chips, refs, now),
    cashoutPairInDb: (db: Db, developerId: string, pair: [SeatCashout, SeatCashout], now: Date) => cashoutPairInDb(statements, db, developerId, pair, now),
    /** Inside the caller's transaction (match ends, hand batches, aborts): atomic on its own, no savepoint per seat. */
    cashoutWithin: (db: Queryable, developerId: string, seatId: number, chips: number, refs: LedgerRefs, now: Date) => cashoutWithin(statements, db, developerId, seatId, chips, refs, now),
  };
}

export type SeatLedger = ReturnType<typeof seatLedger>;


async function refuseIfFenced(db: Queryable, fence: FenceToken | null | undefined, tableId?: string | null): Promise<void> {
  if (!fence) return;
  const rows = await queryRows(db, sql`select ${leaseHolds(fence, tableId)} as holds`);
  if (!(rows[0] as { holds: boolean }).holds) {
    throw new AppError(503, "TABLE_HOST_UNAVAILABLE", "This node no longer hosts the table (its lease was taken over): retry", undefined, { "Retry-After": "2" });
  }
}

async function refuseIfBotRetired(db: Queryable, botId: string): Promise<void> {
  const rows = await queryRows<{ retired_at: Date | string | null }>(db, sql`select retired_at from bots where id = ${botId}`);
  if (rows[0]?.retired_at) throw errors.conflict("BOT_RETIRED", "This bot is retired", { botId });
}

export async function readAccount(db: Queryable, developerId: string) {
  const rows = await db
    .select({ balance: developers.balance, lastFaucetAt: developers.lastFaucetAt })
    .from(developers)
    .where(eq(developers.id, developerId));
  if (rows.length === 0) throw errors.notFound("Developer");
  return rows[0];
}
