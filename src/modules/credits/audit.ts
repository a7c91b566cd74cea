import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db";

export interface AuditReport {
  ok: boolean;
  developers: number;
  transactions: number;
  totalBalances: number;
  openSeatChips: number;
  faucetGrants: number;
  problems: string[];
}

const rows = queryRows;

/**
 * SPEC §4 invariants: per developer, balance = sum of its transactions and each balanceAfter
 * chains from the previous one; over the service, balances + open seat chips = faucet grants;
 * every seat has its buy_in, and every closed seat its cashout.
 */
export async function auditLedger(db: Queryable): Promise<AuditReport> {
  const problems: string[] = [];

  const balanceMismatches = await rows<{ id: string; balance: string; sum: string }>(
    db,
    sql`select d.id, d.balance::text as balance, coalesce(sum(t.amount), 0)::text as sum
        from developers d left join transactions t on t.developer_id = d.id
        group by d.id, d.balance
        having d.balance <> coalesce(sum(t.amount), 0)`,
  );
  for (const row of balanceMismatches) {
    problems.push(`developer ${row.id}: balance ${row.balance} but transactions sum to ${row.sum}`);
  }

  const brokenChains = await rows<{ id: string; developer_id: string; balance_after: string; expected: string }>(
    db,
    sql`select id, developer_id, balance_after::text as balance_after, expected::text as expected from (
          select id, developer_id, balance_after,
                 coalesce(lag(balance_after) over (partition by developer_id order by seq), 0) + amount as expected
          from transactions) chained
        where balance_after <> expected
        limit 100`,
  );
  for (const row of brokenChains) {
    problems.push(`transaction ${row.id} (developer ${row.developer_id}): balanceAfter ${row.balance_after}, expected ${row.expected}`);
  }

  const negative = await rows<{ id: string }>(db, sql`select id from developers where balance < 0`);
  for (const row of negative) problems.push(`developer ${row.id}: negative balance`);

  const seatsWithoutBuyIn = await rows<{ id: string }>(
    db,
    sql`select s.id from seats s
        where (select count(*) from transactions t where t.seat_id = s.id and t.type = 'buy_in') <> 1
        limit 100`,
  );
  for (const row of seatsWithoutBuyIn) problems.push(`seat ${row.id}: not exactly one buy_in transaction`);

  const cashoutMismatch = await rows<{ id: string }>(
    db,
    sql`select s.id from seats s
        where (s.status = 'closed' and (select count(*) from transactions t where t.seat_id = s.id and t.type = 'cashout' and t.amount = s.cashout) <> 1)
           or (s.status = 'open' and exists (select 1 from transactions t where t.seat_id = s.id and t.type = 'cashout'))
        limit 100`,
  );
  for (const row of cashoutMismatch) problems.push(`seat ${row.id}: cashout rows do not match its status`);

  const [totals] = await rows<{ developers: string; transactions: string; balances: string; seats: string; grants: string }>(
    db,
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
