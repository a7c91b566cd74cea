import { sql, type SQL } from "drizzle-orm";
import { hasDatabaseCode, queryRows, type Db } from "../../db";
import { transactionIdOf } from "./transaction-id";

export interface AuditReport {
  ok: boolean;
  developers: number;
  transactions: number;
  totalBalances: number;
  openSeatChips: number;
  faucetGrants: number;
  problems: string[];
}

export interface AuditOptions {
  /**
   * The whole audit's time budget: each statement runs with Postgres's statement_timeout set to
   * what is left of it, so a slow audit fails (AuditIncomplete) instead of running on. Default
   * AUDIT_TIMEOUT_MS. (PGlite accepts the setting but has no timer to enforce it: there the audit
   * runs in its own process, and ending that process ends it.)
   */
  timeoutMs?: number;
  /** Aborted: the statement running is cancelled on Postgres (pg_cancel_backend) and the audit rejects with AuditIncomplete. */
  signal?: AbortSignal;
}

/** Two minutes: a million-row ledger is audited in seconds (bench:audit). */
export const AUDIT_TIMEOUT_MS = 120_000;

/**
 * While a statement runs, Postgres checks this often whether the audit's client is still
 * connected and cancels the statement if not: a killed `bun run audit` (kill -9, a closed
 * terminal) leaves nothing running behind it. (Without it, Postgres notices a vanished client
 * only when it next writes to it: a statement waiting on a lock, or sorting a million rows, runs on.)
 */
const CLIENT_CHECK_MS = 1_000;

/** How many examples of each kind of problem are listed (how many more there are is reported too). */
const LISTED = 100;

/** The audit did not finish: its time budget ran out, or it was interrupted. Nothing was concluded. */
export class AuditIncomplete extends Error {}

const QUERY_CANCELED = "57014";

/**
 * SPEC §4 invariants: per developer, balance = sum of its transactions and each balanceAfter
 * chains from the previous one; no balance is negative; over the service, balances + open seat
 * chips = faucet grants; every seat has exactly one buy_in, every closed seat exactly one cashout
 * of its recorded amount, and no open seat a cashout.
 *
 * Every statement reads the ledger once, set-based (aggregates, one window, hash joins): linear
 * in the ledger's size, never a query per seat or per developer. All of them run in one
 * REPEATABLE READ, read-only transaction, so every check and every total describes one committed
 * instant even while matches keep writing.
 */
export async function auditLedger(db: Db, options: AuditOptions = {}): Promise<AuditReport> {
  const budgetMs = options.timeoutMs ?? AUDIT_TIMEOUT_MS;
  const deadline = performance.now() + budgetMs;
  const signal = options.signal;
  if (signal?.aborted) throw new AuditIncomplete("the audit was interrupted before it started");
  try {
    return await db.transaction(
      async (tx) => {
        const [session] = await queryRows<{ pid: number }>(
          tx,
          sql`select pg_backend_pid() as pid,
                     set_config('application_name', 'poker audit', true),
                     set_config('client_connection_check_interval', ${String(CLIENT_CHECK_MS)}, true),
                     set_config('work_mem', '64MB', true)`,
        );
        // From another connection of the pool: this one is busy with the statement to cancel.
        const cancel = () => void db.execute(sql`select pg_cancel_backend(${session.pid})`).catch(() => {});
        signal?.addEventListener("abort", cancel, { once: true });
        try {
          return await checks(async <T>(query: SQL) => {
            if (signal?.aborted) throw new AuditIncomplete("the audit was interrupted");
            const left = Math.floor(deadline - performance.now());
            if (left <= 0) throw new AuditIncomplete(`the audit did not finish within ${budgetMs} ms`);
            await tx.execute(sql`select set_config('statement_timeout', ${String(left)}, true)`);
            return queryRows<T>(tx, query);
          });
        } finally {
          signal?.removeEventListener("abort", cancel);
        }
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
  } catch (error) {
    if (error instanceof AuditIncomplete) throw error;
    if (hasDatabaseCode(error, QUERY_CANCELED)) {
      throw new AuditIncomplete(signal?.aborted ? "the audit was interrupted (its query was cancelled)" : `the audit did not finish within ${budgetMs} ms (statement timeout)`);
    }
    throw error;
  }
}

type Read = <T>(query: SQL) => Promise<T[]>;

async function checks(read: Read): Promise<AuditReport> {
  const problems: string[] = [];
  const more = (total: number, listed: number, what: string) => {
    if (total > listed) problems.push(`… and ${total - listed} more ${what}`);
  };

  const balanceMismatches = await read<{ id: string; balance: string; sum: string; total: number }>(
    sql`select d.id, d.balance::text as balance, coalesce(t.sum, 0)::text as sum, count(*) over ()::int as total
        from developers d left join (select developer_id, sum(amount) as sum from transactions group by developer_id) t on t.developer_id = d.id
        where d.balance <> coalesce(t.sum, 0)
        limit ${LISTED}`,
  );
  for (const row of balanceMismatches) problems.push(`developer ${row.id}: balance ${row.balance} but transactions sum to ${row.sum}`);
  more(balanceMismatches[0]?.total ?? 0, balanceMismatches.length, "developers whose balance is not the sum of their transactions");

  const brokenChains = await read<{ id: string; developer_id: string; balance_after: string; expected: string; total: number }>(
    // A row's id (stored before migration 0028, else derived from its key), computed for the listed rows only.
    sql`select ${transactionIdOf("chained")} as id, developer_id, balance_after::text as balance_after, expected::text as expected, count(*) over ()::int as total from (
          select id, seq, created_at, developer_id, balance_after,
                 coalesce(lag(balance_after) over (partition by developer_id order by seq), 0) + amount as expected
          from transactions) chained
        where balance_after <> expected
        limit ${LISTED}`,
  );
  for (const row of brokenChains) {
    problems.push(`transaction ${row.id} (developer ${row.developer_id}): balanceAfter ${row.balance_after}, expected ${row.expected}`);
  }
  more(brokenChains[0]?.total ?? 0, brokenChains.length, "transactions whose balanceAfter does not chain");

  const negative = await read<{ id: string }>(sql`select id from developers where balance < 0 limit ${LISTED}`);
  for (const row of negative) problems.push(`developer ${row.id}: negative balance`);

  // Each seat with its ledger rows, in one join (not a count per seat); its developer is the one it
  // stores, else its bot's owner (db/seat-developer.ts, written out here as a join: no look-up a seat).
  const badSeats = await read<{ id: string; buy_ins: number; cashout_rows_wrong: boolean; others_rows: boolean; total: number }>(
    sql`select id, buy_ins, cashout_rows_wrong, others_rows, count(*) over ()::int as total from (
          select s.seq::text as id, count(t.seq) filter (where t.type = 'buy_in')::int as buy_ins,
                 case when s.status = 'closed'
                      then count(t.seq) filter (where t.type = 'cashout') <> 1 or count(t.seq) filter (where t.type = 'cashout' and t.amount = s.cashout) <> 1
                      else count(t.seq) filter (where t.type = 'cashout') > 0 end as cashout_rows_wrong,
                 coalesce(bool_or(t.developer_id <> coalesce(s.developer_id, b.developer_id)), false) as others_rows
          from seats s left join bots b on b.id = s.bot_id left join transactions t on t.seat_seq = s.seq
          group by s.seq, b.developer_id) per_seat
        where buy_ins <> 1 or cashout_rows_wrong or others_rows
        limit ${2 * LISTED}`,
  );
  for (const row of badSeats) {
    if (row.buy_ins !== 1) problems.push(`seat ${row.id}: not exactly one buy_in transaction (${row.buy_ins})`);
    if (row.cashout_rows_wrong) problems.push(`seat ${row.id}: cashout rows do not match its status`);
    if (row.others_rows) problems.push(`seat ${row.id}: a ledger row of another developer`);
  }
  more(badSeats[0]?.total ?? 0, badSeats.length, "seats whose ledger rows are wrong");

  const seatless = await read<{ id: string; seat: string; total: number }>(
    sql`select ${transactionIdOf("t")} as id, t.seat_seq::text as seat, count(*) over ()::int as total from transactions t
        where t.seat_seq is not null and not exists (select 1 from seats s where s.seq = t.seat_seq)
        limit ${LISTED}`,
  );
  for (const row of seatless) problems.push(`transaction ${row.id}: names seat ${row.seat}, which does not exist`);
  more(seatless[0]?.total ?? 0, seatless.length, "transactions naming no seat");

  const [totals] = await read<{ developers: string; transactions: string; balances: string; seats: string; grants: string }>(
    sql`select (select count(*) from developers)::text as developers,
               (select count(*) from transactions)::text as transactions,
               (select coalesce(sum(balance), 0) from developers)::text as balances,
               (select coalesce(sum(chips), 0) from seats where status = 'open')::text as seats,
               (select coalesce(sum(amount), 0) from transactions where type = 'faucet')::text as grants`,
  );
  const totalBalances = Number(totals.balances);
  const openSeatChips = Number(totals.seats);
  const faucetGrants = Number(totals.grants);
  if (totalBalances + openSeatChips !== faucetGrants) {
    problems.push(
      `service: balances ${totalBalances} + open seat chips ${openSeatChips} = ${totalBalances + openSeatChips}, but faucet grants = ${faucetGrants}`,
    );
  }

  return {
    ok: problems.length === 0,
    developers: Number(totals.developers),
    transactions: Number(totals.transactions),
    totalBalances,
    openSeatChips,
    faucetGrants,
    problems,
  };
}
