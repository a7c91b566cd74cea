import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import postgres from "postgres";
import { openDatabase, type Database } from "../../src/db";
import { AuditIncomplete, auditLedger } from "../../src/modules/credits/audit";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { generateLedger, type GeneratedLedger } from "../support/ledger";
import { until } from "../support/nodes";
import { ROOT } from "../support/process";

// The audit on a generated ledger (20,000 rows; bench:audit runs the same at a million): exact on a
// consistent one, and each kind of corruption caught. Then its bounds: the time budget, an
// interruption, and a client killed outright — none leaves a query running on Postgres.
setDefaultTimeout(120_000);

let testDb: TestDatabase;
let database: Database;
let sql: postgres.Sql;
let ledger: GeneratedLedger;
beforeAll(async () => {
  testDb = await createTestDatabase("audit");
  database = await openDatabase({ databaseUrl: testDb.url });
  sql = postgres(testDb.url, { max: 4, onnotice: () => {} });
  ledger = await generateLedger(sql, 20_000);
});
afterAll(async () => {
  await sql?.end();
  await database?.close();
  await testDb?.drop();
});

/** The audit's sessions on this test's database that are running a statement now (other databases of the same server may run audits of their own). */
const auditQueriesRunning = async () =>
  [...(await sql<{ pid: number; wait_event_type: string | null }[]>`
    select pid, wait_event_type from pg_stat_activity where application_name = 'poker audit' and state = 'active' and datname = current_database()`)];

/** Holds a table of the ledger locked (as a long write would) until the returned function is called. */
async function ledgerLocked(table: "transactions" | "seats" = "transactions"): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = sql.begin(async (tx) => {
    await tx.unsafe(`lock table ${table} in access exclusive mode`);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await holder;
  };
}

function runAuditCli(args: string[] = []) {
  return Bun.spawn(["bun", "src/audit.ts", ...args], { cwd: ROOT, env: { ...process.env, ...TEST_ENV, DATABASE_URL: testDb.url }, stdout: "pipe", stderr: "pipe" });
}

describe("the audit on a generated ledger", () => {
  test("is exact on a consistent ledger", async () => {
    const report = await auditLedger(database.db);
    expect(report.problems).toEqual([]);
    expect(report).toEqual({
      ok: true,
      developers: ledger.developers,
      transactions: ledger.transactions,
      totalBalances: ledger.faucetGrants - ledger.openSeatChips,
      openSeatChips: ledger.openSeatChips,
      faucetGrants: ledger.faucetGrants,
      problems: [],
    });
    expect(ledger.transactions).toBe(20_000);
  });

  // Each corruption is applied, audited and undone; the audit must name it, and be clean again after.
  const CORRUPTIONS: Array<{ kind: string; corrupt: string; undo: string; expected: string[] }> = [
    {
      kind: "a balance that is not the sum of its transactions",
      corrupt: "update developers set balance = balance + 7 where id = 'gen_d3'",
      undo: "update developers set balance = balance - 7 where id = 'gen_d3'",
      expected: ["developer gen_d3: balance", "service: balances"],
    },
    {
      kind: "a balanceAfter that does not chain from the one before",
      corrupt: "update transactions set balance_after = balance_after + 5 where id = 'gen_t4_10'",
      undo: "update transactions set balance_after = balance_after - 5 where id = 'gen_t4_10'",
      expected: ["transaction gen_t4_10 (developer gen_d4): balanceAfter", "transaction gen_t4_11 (developer gen_d4): balanceAfter"],
    },
    {
      kind: "a negative balance",
      // The schema's check refuses it: an audit must still catch it on a database that lost the check.
      corrupt: "alter table developers drop constraint developers_balance_non_negative; update developers set balance = -1 where id = 'gen_d5'",
      undo: "update developers set balance = (select balance_after from transactions where id = 'gen_t5_99') where id = 'gen_d5'; alter table developers add constraint developers_balance_non_negative check (balance >= 0)",
      expected: ["developer gen_d5: negative balance"],
    },
    {
      kind: "a buy-in moved to another seat (one seat without, one with two)",
      corrupt: "update transactions set seat_seq = 302 where id = 'gen_t6_1'",
      undo: "update transactions set seat_seq = 301 where id = 'gen_t6_1'",
      expected: ["seat 301: not exactly one buy_in transaction (0)", "seat 302: not exactly one buy_in transaction (2)"],
    },
    {
      kind: "a seat whose ledger rows are another developer's",
      corrupt: "update seats set developer_id = 'gen_d12' where seq = 553",
      undo: "update seats set developer_id = 'gen_d11' where seq = 553",
      expected: ["seat 553: a ledger row of another developer"],
    },
    {
      kind: "a ledger row naming a seat that does not exist",
      corrupt: "update transactions set seat_seq = 999999 where id = 'gen_t12_1'",
      undo: "update transactions set seat_seq = 601 where id = 'gen_t12_1'",
      expected: ["transaction gen_t12_1: names seat 999999, which does not exist", "seat 601: not exactly one buy_in transaction (0)"],
    },
    {
      kind: "a closed seat whose cashout row is not its recorded cashout",
      corrupt: "update seats set cashout = cashout + 1 where seq = 353",
      undo: "update seats set cashout = cashout - 1 where seq = 353",
      expected: ["seat 353: cashout rows do not match its status"],
    },
    {
      kind: "an open seat with a cashout row",
      corrupt: "update seats set status = 'open' where seq = 404",
      undo: "update seats set status = 'closed' where seq = 404",
      expected: ["seat 404: cashout rows do not match its status"],
    },
    {
      kind: "chips created at an open seat (only the global sum shows it)",
      corrupt: "update seats set chips = chips + 3 where seq = 500",
      undo: "update seats set chips = chips - 3 where seq = 500",
      expected: ["service: balances"],
    },
  ];

  test("catches each kind of corruption, and is clean once it is undone", async () => {
    let caught = 0;
    for (const { kind, corrupt, undo, expected } of CORRUPTIONS) {
      await sql.begin((tx) => tx.unsafe(corrupt));
      const report = await auditLedger(database.db);
      expect({ kind, ok: report.ok }).toEqual({ kind, ok: false });
      for (const problem of expected) expect({ kind, found: report.problems.some((p) => p.startsWith(problem)) }).toEqual({ kind, found: true });
      caught += 1;
      await sql.begin((tx) => tx.unsafe(undo));
      expect({ kind, after: (await auditLedger(database.db)).problems }).toEqual({ kind, after: [] });
    }
    expect(caught).toBe(CORRUPTIONS.length);
  });

  test("lists at most 100 of a kind and counts the rest", async () => {
    await sql`update seats set cashout = cashout + 1 where status = 'closed' and developer_id in ('gen_d10', 'gen_d11', 'gen_d12')`;
    try {
      const report = await auditLedger(database.db);
      expect(report.problems.filter((p) => p.includes("cashout rows do not match")).length).toBe(147);
      await sql`update seats set cashout = cashout + 1 where status = 'closed' and developer_id in ('gen_d13', 'gen_d14', 'gen_d15')`;
      const more = await auditLedger(database.db);
      expect(more.problems.filter((p) => p.includes("cashout rows do not match")).length).toBe(200);
      expect(more.problems).toContain("… and 94 more seats whose ledger rows are wrong");
    } finally {
      await sql`update seats set cashout = cashout - 1 where status = 'closed' and developer_id in ('gen_d10', 'gen_d11', 'gen_d12', 'gen_d13', 'gen_d14', 'gen_d15')`;
    }
    expect((await auditLedger(database.db)).problems).toEqual([]);
  });

  test("`bun run audit` says OK on the consistent ledger and exits 1 naming a corruption", async () => {
    const clean = runAuditCli();
    const [out, code] = await Promise.all([new Response(clean.stdout).text(), clean.exited]);
    expect([code, out.trim()]).toEqual([0, `audit OK: ${ledger.developers} developers, ${ledger.transactions} transactions; balances ${ledger.faucetGrants - ledger.openSeatChips} + open seats ${ledger.openSeatChips} vs faucet grants ${ledger.faucetGrants}`]);
    await sql`update seats set cashout = cashout + 1 where seq = 102`;
    try {
      const dirty = runAuditCli();
      const [err, dirtyCode] = await Promise.all([new Response(dirty.stderr).text(), dirty.exited]);
      expect(dirtyCode).toBe(1);
      expect(err).toContain("audit FAILED");
      expect(err).toContain("- seat 102: cashout rows do not match its status");
    } finally {
      await sql`update seats set cashout = cashout - 1 where seq = 102`;
    }
  });
});

describe("the audit is bounded and leaves nothing running", () => {
  test("reads one snapshot: what commits while it runs is in none of its figures", async () => {
    // The audit reads the developers and transactions first, then waits for the seats (locked
    // here). Meanwhile a faucet grant commits. Its totals, read after that commit, must still be
    // those of the instant it began (as its earlier checks were), not a mix of two instants.
    const unlock = await ledgerLocked("seats");
    const audit = auditLedger(database.db);
    await until(async () => (await auditQueriesRunning()).some((q) => q.wait_event_type === "Lock"), 20_000, "the audit waiting on the seats' lock");
    await sql.begin(async (tx) => {
      const [developer] = await tx`select balance from developers where id = 'gen_d1' for update`;
      await tx`insert into transactions (id, developer_id, type, amount, balance_after, created_at) values ('gen_extra', 'gen_d1', 'faucet', 100, ${Number(developer.balance) + 100}, now())`;
      await tx`update developers set balance = balance + 100 where id = 'gen_d1'`;
    });
    await unlock();
    const report = await audit;
    expect([report.problems, report.transactions, report.faucetGrants]).toEqual([[], ledger.transactions, ledger.faucetGrants]);
    const after = await auditLedger(database.db);
    expect([after.problems, after.transactions, after.faucetGrants]).toEqual([[], ledger.transactions + 1, ledger.faucetGrants + 100]);
    await sql.begin(async (tx) => {
      await tx`delete from transactions where id = 'gen_extra'`;
      await tx`update developers set balance = balance - 100 where id = 'gen_d1'`;
    });
  });

  test("past its time budget its statement is cancelled by Postgres and it rejects, concluding nothing", async () => {
    const unlock = await ledgerLocked();
    try {
      const error = await auditLedger(database.db, { timeoutMs: 300 }).catch((e) => e);
      expect(error).toBeInstanceOf(AuditIncomplete);
      expect(error.message).toContain("did not finish within 300 ms");
      expect(await auditQueriesRunning()).toEqual([]);
    } finally {
      await unlock();
    }
  });

  test("interrupted (its signal aborted), its running statement is cancelled on Postgres", async () => {
    const unlock = await ledgerLocked();
    try {
      const interrupted = new AbortController();
      const audit = auditLedger(database.db, { signal: interrupted.signal }).catch((e) => e);
      await until(async () => (await auditQueriesRunning()).some((q) => q.wait_event_type === "Lock"), 20_000, "the audit waiting on the ledger's lock");
      interrupted.abort();
      const error = await audit;
      expect(error).toBeInstanceOf(AuditIncomplete);
      expect(error.message).toContain("interrupted");
      // Cancelled, not merely abandoned: nothing of it runs on Postgres while the lock is still held.
      expect(await auditQueriesRunning()).toEqual([]);
    } finally {
      await unlock();
    }
  });

  test("`bun run audit` stopped by SIGTERM or SIGINT cancels its query before it exits", async () => {
    let stopped = 0;
    for (const [signal, exitCode] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
      const unlock = await ledgerLocked();
      try {
        const child = runAuditCli();
        await until(async () => (await auditQueriesRunning()).some((q) => q.wait_event_type === "Lock"), 30_000, "the CLI's audit waiting on the lock");
        child.kill(signal);
        const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
        expect({ signal, code }).toEqual({ signal, code: exitCode });
        expect(stderr).toContain("audit did not finish: the audit was interrupted");
        expect(await auditQueriesRunning()).toEqual([]);
        stopped += 1;
      } finally {
        await unlock();
      }
    }
    expect(stopped).toBe(2);
  });

  test("`bun run audit` killed outright (SIGKILL) leaves no query behind: Postgres notices the client is gone", async () => {
    const unlock = await ledgerLocked();
    try {
      const child = runAuditCli();
      await until(async () => (await auditQueriesRunning()).some((q) => q.wait_event_type === "Lock"), 30_000, "the CLI's audit waiting on the lock");
      child.kill("SIGKILL");
      await child.exited;
      // The lock is still held: without the client check the statement would wait behind it for good.
      await until(async () => (await auditQueriesRunning()).length === 0, 20_000, "Postgres ending the killed client's statement");
    } finally {
      await unlock();
    }
  });

  test("--timeout-ms bounds the CLI: exit 2, and nothing left running", async () => {
    const unlock = await ledgerLocked();
    try {
      const child = runAuditCli(["--timeout-ms", "300"]);
      const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
      expect([code, stderr.trim()]).toEqual([2, "audit did not finish: the audit did not finish within 300 ms (statement timeout); nothing was concluded"]);
      expect(await auditQueriesRunning()).toEqual([]);
    } finally {
      await unlock();
    }
  });
});
