import { and, eq, gte, isNull, lte, or, sql } from "drizzle-orm";
import { developers, seats, transactions, type TransactionType } from "../../db/schema";
import type { Queryable, Tx } from "../../db";
import { invariant } from "../../lib/assert";
import { AppError, errors } from "../../lib/errors";
import { newId } from "../../lib/ids";

/**
 * The SQL half of the ledger: every balance change and its transaction row in one database
 * transaction, guarded in SQL so that correctness never depends on running a single process.
 * Callers may pass an open transaction; the work then joins it (as a savepoint).
 */

export interface LedgerRefs {
  botId?: string | null;
  tableId?: string | null;
  matchId?: string | null;
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
  seatId: string;
}

export interface CashoutOutcome {
  balance: number;
  transactionId: string;
}

async function appendTransaction(
  tx: Tx,
  row: { developerId: string; type: TransactionType; amount: number; balanceAfter: number; seatId?: string } & LedgerRefs,
  now: Date,
): Promise<string> {
  const id = newId("tx", now.getTime());
  await tx.insert(transactions).values({
    id,
    developerId: row.developerId,
    type: row.type,
    amount: row.amount,
    balanceAfter: row.balanceAfter,
    botId: row.botId ?? null,
    tableId: row.tableId ?? null,
    matchId: row.matchId ?? null,
    seatId: row.seatId ?? null,
    createdAt: now,
  });
  return id;
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
  const claimableBefore = new Date(now.getTime() - cooldownMs);
  return db.transaction(async (tx) => {
    const granted = await tx
      .update(developers)
      .set({ balance: sql`${developers.balance} + ${amount}`, lastFaucetAt: now })
      .where(
        and(
          eq(developers.id, developerId),
          or(isNull(developers.lastFaucetAt), lte(developers.lastFaucetAt, claimableBefore)),
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

/** Deducts the buy-in, writes its buy_in row and opens the seat holding those chips, atomically. */
export async function buyInInDb(
  db: Queryable,
  developerId: string,
  amount: number,
  refs: SeatRefs,
  now: Date,
): Promise<BuyInOutcome> {
  invariant(Number.isSafeInteger(amount) && amount > 0, "buy-in is a positive integer");
  return db.transaction(async (tx) => {
    const debited = await tx
      .update(developers)
      .set({ balance: sql`${developers.balance} - ${amount}` })
      .where(and(eq(developers.id, developerId), gte(developers.balance, amount)))
      .returning({ balance: developers.balance });
    if (debited.length === 0) {
      const current = await readAccount(tx, developerId);
      throw errors.insufficientBalance(current.balance, amount);
    }
    const balance = debited[0].balance;
    invariant(balance >= 0, "balance never goes below zero");
    const seatId = newId("seat", now.getTime());
    const opened = await tx
      .insert(seats)
      .values({
        id: seatId,
        developerId,
        botId: refs.botId ?? null,
        tableId: refs.tableId ?? null,
        position: refs.position ?? null,
        buyIn: amount,
        chips: amount,
        status: "open",
        openedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: seats.id });
    if (opened.length === 0) {
      // A unique index refused the seat: the bot already sits somewhere, or the position is taken.
      const botSeated = refs.botId
        ? await tx.select({ id: seats.id }).from(seats).where(and(eq(seats.botId, refs.botId), eq(seats.status, "open")))
        : [];
      if (botSeated.length > 0) {
        throw errors.conflict("BOT_ALREADY_SEATED", "This bot already sits at a table", { botId: refs.botId });
      }
      throw errors.conflict("TABLE_FULL", "That seat was just taken", { position: refs.position });
    }
    const transactionId = await appendTransaction(
      tx,
      {
        developerId,
        type: "buy_in",
        amount: -amount,
        balanceAfter: balance,
        seatId,
        botId: refs.botId,
        tableId: refs.tableId,
        matchId: refs.matchId,
      },
      now,
    );
    return { balance, transactionId, seatId };
  });
}

/** Closes an open seat and credits its remaining chips with a cashout row, atomically. Once per seat. */
export function cashoutInDb(
  db: Queryable,
  developerId: string,
  seatId: string,
  chips: number,
  refs: LedgerRefs,
  now: Date,
): Promise<CashoutOutcome> {
  return db.transaction((tx) => cashoutWithin(tx, developerId, seatId, chips, refs, now));
}

/**
 * The cashout's statements, for a caller that already holds a transaction (match ends and hand
 * batches cash many seats out in one): no savepoint per seat.
 */
export async function cashoutWithin(
  tx: Tx,
  developerId: string,
  seatId: string,
  chips: number,
  refs: LedgerRefs,
  now: Date,
): Promise<CashoutOutcome> {
  invariant(Number.isSafeInteger(chips) && chips >= 0, "cashout is a non-negative integer");
  const closed = await tx
    .update(seats)
    .set({ status: "closed", chips: 0, cashout: chips, closedAt: now })
    .where(and(eq(seats.id, seatId), eq(seats.developerId, developerId), eq(seats.status, "open")))
    .returning({ botId: seats.botId, tableId: seats.tableId });
  if (closed.length === 0) {
    throw new AppError(409, "CONFLICT", "The seat is not open (already cashed out?)", { seatId });
  }
  const credited = await tx
    .update(developers)
    .set({ balance: sql`${developers.balance} + ${chips}` })
    .where(eq(developers.id, developerId))
    .returning({ balance: developers.balance });
  invariant(credited.length === 1, "the seat's developer exists");
  const balance = credited[0].balance;
  const transactionId = await appendTransaction(
    tx,
    {
      developerId,
      type: "cashout",
      amount: chips,
      balanceAfter: balance,
      seatId,
      botId: refs.botId ?? closed[0].botId,
      tableId: refs.tableId ?? closed[0].tableId,
      matchId: refs.matchId ?? null,
    },
    now,
  );
  return { balance, transactionId };
}

export async function readAccount(db: Queryable, developerId: string) {
  const rows = await db
    .select({ balance: developers.balance, lastFaucetAt: developers.lastFaucetAt })
    .from(developers)
    .where(eq(developers.id, developerId));
  if (rows.length === 0) throw errors.notFound("Developer");
  return rows[0];
}
