import type postgres from "postgres";

/** Each generated developer's ledger: one faucet grant, then 49 closed seats and one open one. */
export const TRANSACTIONS_PER_DEVELOPER = 100;
export const GENERATED_GRANT = 10_000;
export const GENERATED_BUY_IN = 1_000;

export interface GeneratedLedger {
  developers: number;
  transactions: number;
  seats: number;
  faucetGrants: number;
  openSeatChips: number;
}

/**
 * A consistent ledger of about `transactions` rows, written by set-based SQL (generate_series and
 * window functions: seconds for a million rows), for the audit's test and bench. Developer d has
 * TRANSACTIONS_PER_DEVELOPER rows in seq order: k = 0 a faucet grant; k = 2j-1 the buy-in of its
 * seat j (j = 1…50); k = 2j the cashout of seat j (j = 1…49), so seat 50 stays open with its
 * buy-in as chips. Pairs of developers win and lose the same amounts (even d wins (j mod 7) × 10 at
 * seat j, d + 1 loses it), so chips are conserved across the service: sum of balances + chips of
 * open seats = sum of faucet grants, every balance equals the sum of its rows, and each
 * balance_after chains from the one before it. Ids are `gen_d<d>` and `gen_t<d>_<k>`; seat j of developer d is number 50d + j.
 */
export async function generateLedger(sql: postgres.Sql, transactions: number): Promise<GeneratedLedger> {
  const developers = 2 * Math.max(1, Math.round(transactions / TRANSACTIONS_PER_DEVELOPER / 2));
  const seatsEach = TRANSACTIONS_PER_DEVELOPER / 2;
  await sql`insert into developers (id, email, password_hash, balance, created_at)
    select 'gen_d' || d, 'gen' || d || '@ledger.example', 'not a hash', 0, now() - interval '1 day'
    from generate_series(0, ${developers - 1}::int) d`;
  // A seat's result: what developer d won (or, its partner, lost) at seat j.
  await sql`insert into seats (seq, developer_id, buy_in, chips, status, cashout, opened_at, closed_at)
    select d * ${seatsEach}::int + j, 'gen_d' || d, ${GENERATED_BUY_IN}::bigint,
           case when j = ${seatsEach}::int then ${GENERATED_BUY_IN}::bigint else 0 end,
           case when j = ${seatsEach}::int then 'open' else 'closed' end,
           case when j = ${seatsEach}::int then null else ${GENERATED_BUY_IN}::bigint + (case when d % 2 = 0 then 1 else -1 end) * (j % 7) * 10 end,
           now() - interval '1 hour', case when j = ${seatsEach}::int then null else now() - interval '30 minutes' end
    from generate_series(0, ${developers - 1}::int) d, generate_series(1, ${seatsEach}::int) j`;
  await sql`select setval(pg_get_serial_sequence('seats', 'seq'), (select max(seq) from seats))`;
  await sql`insert into transactions (seq, id, developer_id, type, amount, balance_after, seat_seq, created_at)
    select d * ${TRANSACTIONS_PER_DEVELOPER}::int + k + 1, 'gen_t' || d || '_' || k, 'gen_d' || d, kind, amount,
           sum(amount) over (partition by d order by k), seat, now() - interval '1 hour' + k * interval '1 second'
    from (
      select d, k,
             case when k = 0 then 'faucet' when k % 2 = 1 then 'buy_in' else 'cashout' end as kind,
             case when k = 0 then ${GENERATED_GRANT}::bigint
                  when k % 2 = 1 then -${GENERATED_BUY_IN}::bigint
                  else ${GENERATED_BUY_IN}::bigint + (case when d % 2 = 0 then 1 else -1 end) * ((k / 2) % 7) * 10 end as amount,
             case when k = 0 then null else d * ${seatsEach}::int + (k + 1) / 2 end as seat
      from generate_series(0, ${developers - 1}::int) d, generate_series(0, ${TRANSACTIONS_PER_DEVELOPER - 1}::int) k
    ) rows`;
  await sql`select setval(pg_get_serial_sequence('transactions', 'seq'), (select max(seq) from transactions))`;
  await sql`update developers d set balance = t.balance_after from transactions t
    where t.developer_id = d.id and d.id like 'gen_d%' and t.seq = (substr(d.id, 6)::bigint + 1) * ${TRANSACTIONS_PER_DEVELOPER}::int`;
  await sql`analyze developers, seats, transactions`;
  return {
    developers,
    transactions: developers * TRANSACTIONS_PER_DEVELOPER,
    seats: developers * seatsEach,
    faucetGrants: developers * GENERATED_GRANT,
    openSeatChips: developers * GENERATED_BUY_IN,
  };
}
