/**
 * What must hold after a campaign (tests/campaigns), one named function per rule, so a campaign's
 * tests read as the list of its invariants. Each one that walks a collection also asserts how many
 * it checked: an empty collection is a failure, not a pass.
 */
import { expect } from "bun:test";
import { sql } from "drizzle-orm";
import type { Queryable } from "../../src/db";
import { auditLedger, type AuditReport } from "../../src/modules/credits/audit";
import { developerBooks, matchProblems, perDeveloperProblems, rowsOf, runAuditCli, type ServerProcess } from "./support";

/** What a campaign saw go wrong while it ran. */
export interface RunFaults {
  /** Answers with a 5xx status. */
  internalErrors: number;
  /** Recorded failures that were about a 5xx. */
  fiveHundreds: string[];
  /** Tables whose match a process logged as failed ("match at table … failed"). */
  failedWrites: number;
  /** "deadlock detected" lines in the processes' logs. */
  deadlocks: number;
  /** Matches recorded as aborted when the run settled. */
  aborted: number;
}

/** No request answered 5xx, no match write failed, no deadlock, nothing aborted (deadlock.test.ts was once all of these). */
export function expectNoServerFaults(faults: RunFaults): void {
  expect(faults).toEqual({ internalErrors: 0, fiveHundreds: [], failedWrites: 0, deadlocks: 0, aborted: 0 });
}

/** The lines each process logged as itself ("[poker] …" or "[poker <node>] …"). */
export function loggedLines(logs: string[]): string[] {
  return logs.flatMap((log) => log.split(/\[poker(?: [^\]]*)?\] /).slice(1));
}

/** No process logged anything as itself; every 5xx was at least logged as an unexpected error. */
export function expectNothingLogged(logs: string[], internalErrors: number): void {
  expect(logs.length).toBeGreaterThan(0);
  expect(loggedLines(logs).map((e) => e.slice(0, 500))).toEqual([]);
  const unexpected = logs.reduce((n, log) => n + (log.match(/\[poker(?: [^\]]*)?\] unexpected error/g)?.length ?? 0), 0);
  expect(internalErrors).toBeLessThanOrEqual(unexpected);
}

/** The ledger audit finds nothing, in process and as `bun run audit` (exit 0, "audit OK"). */
export async function expectLedgerAudited(db: Queryable, databaseUrl: string): Promise<AuditReport> {
  const report = await auditLedger(db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
  const cli = await runAuditCli(databaseUrl);
  expect({ exitCode: cli.exitCode, failed: cli.stderr.includes("FAILED") }).toEqual({ exitCode: 0, failed: false });
  expect(cli.stdout).toContain("audit OK");
  return report;
}

/**
 * Every developer's books balance (perDeveloperProblems: balance + open seats = grants + winnings,
 * none negative), for at least `minDevelopers` developers; and no sampled balance was negative.
 */
export async function expectEveryDeveloperBalanced(db: Queryable, minDevelopers: number, sampled: { samples: number; minBalance: number }): Promise<void> {
  expect(await perDeveloperProblems(db)).toEqual([]);
  expect((await developerBooks(db)).length).toBeGreaterThanOrEqual(minDevelopers);
  expect(sampled.samples).toBeGreaterThan(0);
  expect(sampled.minBalance).toBeGreaterThanOrEqual(0);
}

/** A developer as the campaign knows it: the faucet grants it was answered 200 for. */
export interface GrantedDeveloper {
  email: string;
  developerId: string;
  grants: number;
}

/**
 * Every faucet 200 is exactly one grant of `amount` and every 429 none, per developer (each one
 * counted: all of `devs` are in the books) and in total (the audit's faucetGrants).
 */
export async function expectFaucetGrantsAsAnswered(db: Queryable, devs: GrantedDeveloper[], amount: number): Promise<void> {
  expect(devs.length).toBeGreaterThan(0);
  const books = new Map((await developerBooks(db)).map((b) => [b.id, b]));
  let checked = 0;
  for (const dev of devs) {
    expect({ dev: dev.email, grants: books.get(dev.developerId)?.grantCount }).toEqual({ dev: dev.email, grants: dev.grants });
    expect(books.get(dev.developerId)!.grants).toBe(dev.grants * amount);
    checked += 1;
  }
  expect(checked).toBe(devs.length);
  expect((await auditLedger(db)).faucetGrants).toBe(devs.reduce((s, d) => s + d.grants, 0) * amount);
}

/** Grants to one developer are at least the cooldown apart, whichever process granted them. */
export async function expectGrantsCooldownApart(db: Queryable, cooldownMs: number): Promise<void> {
  const [counted] = await rowsOf<{ grants: number; too_close: number }>(
    db,
    sql`select count(*)::int as grants,
               count(*) filter (where gap < make_interval(secs => ${cooldownMs / 1000}))::int as too_close
        from (select developer_id, created_at - lag(created_at) over (partition by developer_id order by created_at) as gap
              from transactions where type = 'faucet') x`,
  );
  expect(counted.grants).toBeGreaterThan(0);
  expect(counted.too_close).toBe(0);
}

/** No open seat at a table that is not waiting (a started or finished match closed its seats). */
export async function expectOpenSeatsOnlyAtWaitingTables(db: Queryable): Promise<void> {
  const [stray] = await rowsOf<{ n: number }>(
    db,
    sql`select count(*)::int as n from seats s join tables t on t.id = s.table_id where s.status = 'open' and t.status <> 'waiting'`,
  );
  expect(stray.n).toBe(0);
}

export interface MatchStats {
  completed: number;
  hands: number;
  aborted: number;
  /** Completed matches whose final chips do not sum to their buy-ins. */
  bad: number;
}

export async function matchStats(db: Queryable): Promise<MatchStats> {
  const [stats] = await rowsOf<MatchStats>(
    db,
    sql`select (select count(*) from matches where status = 'completed')::int as completed,
               (select coalesce(sum(hands_played), 0) from matches where status = 'completed')::int as hands,
               (select count(*) from matches where status = 'aborted')::int as aborted,
               (select count(*) from (select m.id from matches m join match_players p on p.match_id = m.id
                  where m.status = 'completed' group by m.id having sum(p.final_chips) <> sum(p.buy_in)) x)::int as bad`,
  );
  return stats;
}

/**
 * Completed matches conserve chips (final chips = buy-ins, profits sum to 0, every one has
 * players), at least one match completed, and exactly `expectedAborted` were aborted.
 */
export async function expectMatchesConserveChips(db: Queryable, expectedAborted: number): Promise<MatchStats> {
  const stats = await matchStats(db);
  expect(stats.bad).toBe(0);
  expect(await matchProblems(db)).toEqual([]);
  expect(stats.aborted).toBe(expectedAborted);
  expect(stats.completed).toBeGreaterThan(0);
  return stats;
}

/** SIGTERM to every process: each exits 0, and the books still balance afterwards. */
export async function expectCleanStopKeepsBooks(servers: ServerProcess[], db: Queryable): Promise<void> {
  expect(servers.length).toBeGreaterThan(0);
  for (const s of servers) s.child.kill("SIGTERM");
  expect(await Promise.all(servers.map((s) => s.child.exited))).toEqual(servers.map(() => 0));
  expect((await auditLedger(db)).problems).toEqual([]);
  expect(await perDeveloperProblems(db)).toEqual([]);
}
