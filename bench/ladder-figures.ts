/**
 * The figures of `bun run bench:ladder`, from outside the service: the load process's records of
 * its remote bots (Date.now() at entry, match_started, match_ended) and the database (seats of
 * ladder tables, matches, ratings). Every time is Date.now() of this one machine.
 */
import { readFileSync } from "node:fs";
import type { TestCluster } from "../tests/support/nodes";

export type Event = [type: "started" | "resumed" | "ended" | "disconnected" | "connected", at: number, tableId?: string];
export interface RemoteRecord {
  botId: string;
  enteredAt: number;
  events: Event[];
}

export const percentile = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil((p / 100) * xs.length) - 1))]!);
export const s = (ms: number) => (Number.isNaN(ms) ? "–" : `${(ms / 1000).toFixed(2)} s`);
export const dist = (xs: number[]) => `p50 ${s(percentile(xs, 50))}, p95 ${s(percentile(xs, 95))}, max ${s(Math.max(...xs))} (n=${xs.length})`;

/** utime + stime of a process (ms), 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The whole machine's busy and total jiffies (every process: nodes, load, Postgres, other engineers). */
export function machineJiffies(): { busy: number; total: number } {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/** CPU (ms) of every Postgres backend serving this run's database now, by pid (read from /proc). */
export async function postgresCpu(cluster: TestCluster): Promise<Map<number, number>> {
  const rows = await cluster.sql((db) => db`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
  return new Map(rows.map((r) => [r.pid as number, cpuMs(r.pid as number)]));
}

/** CPU the backends used between two readings (a backend that came meanwhile counts whole; one that left is lost). */
export const postgresDelta = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((a, [pid, ms]) => a + ms - (before.get(pid) ?? 0), 0);

interface SeatRow {
  bot_id: string;
  developer_id: string;
  table_id: string;
  opened_at: Date;
  closed_at: Date | null;
  match_id: string | null;
}

export async function figures(cluster: TestCluster, run: { remote: RemoteRecord[]; builtinEnteredAt: Map<string, number>; t0: number; tEnd: number; killAt?: number }) {
  const { remote, builtinEnteredAt, t0, tEnd, killAt } = run;
  const [seats, matches, ratings, entries, doubledTables, openTwice] = await cluster.sql((db) =>
    Promise.all([
      db<SeatRow[]>`select s.bot_id, coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) as developer_id, s.table_id, s.opened_at, s.closed_at, t.match_id from seats s join tables t on t.id = s.table_id
                    where t.ladder = 'heads-up' and s.bot_id is not null order by s.opened_at`,
      db<Array<{ status: string; hands_played: number; started_at: Date; ended_at: Date | null }>>`select m.status, m.hands_played, m.started_at, m.ended_at from matches m join tables t on t.id = m.table_id where t.ladder is not null`,
      db<Array<{ bot_id: string; rating: number }>>`select bot_id, rating from bot_ratings`,
      db<Array<{ bot_id: string; developer_id: string; entered_at: Date }>>`select bot_id, developer_id, entered_at from ladder_entries where format = 'heads-up'`,
      db`select s.table_id from seats s join tables t on t.id = s.table_id where t.ladder is not null group by s.table_id, coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) having count(*) > 1`,
      db`select bot_id from seats where status = 'open' and bot_id is not null group by bot_id having count(*) > 1`,
    ]),
  );
  const spansKill = (from: number, to: number) => killAt !== undefined && from <= killAt && killAt <= to;

  // Time to the first match, and the idle gaps: remote bots as their load process saw them.
  const firstRemote: number[] = [];
  const gapsRemote: number[] = [];
  const gapsAcrossKill: number[] = [];
  for (const r of remote) {
    const first = r.events.find((e) => e[0] === "started");
    if (first) firstRemote.push(first[1] - r.enteredAt);
    let lastEnd: number | null = null;
    for (const [type, at] of r.events.filter((e) => e[1] <= tEnd)) {
      if (type === "ended") lastEnd = at;
      if (type === "started" && lastEnd !== null) {
        (spansKill(lastEnd, at) ? gapsAcrossKill : gapsRemote).push(at - lastEnd);
        lastEnd = null;
      }
    }
  }
  // Built-ins (the developers' and the house's) from their seats at ladder tables that got a match.
  // Only what happened in the run's window (the figures are read a while after it ends).
  const played = seats.filter((x) => x.match_id !== null && x.opened_at.getTime() <= tEnd);
  const byBot = new Map<string, SeatRow[]>();
  for (const x of played) byBot.set(x.bot_id, [...(byBot.get(x.bot_id) ?? []), x]);
  const remoteIds = new Set(remote.map((r) => r.botId));
  const firstBuiltin: number[] = [];
  const gapsBuiltin: number[] = [];
  for (const e of entries) {
    if (remoteIds.has(e.bot_id)) continue;
    const list = byBot.get(e.bot_id) ?? [];
    const enteredAt = builtinEnteredAt.get(e.bot_id);
    if (enteredAt !== undefined && list.length > 0) firstBuiltin.push(list[0]!.opened_at.getTime() - enteredAt);
    for (let i = 1; i < list.length; i++) {
      const end = list[i - 1]!.closed_at?.getTime();
      if (end === undefined || end > tEnd) continue;
      const at = list[i]!.opened_at.getTime();
      (spansKill(end, at) ? gapsAcrossKill : gapsBuiltin).push(at - end);
    }
  }

  // Variety: meetings per pair vs uniform pairing among the n entered bots.
  const n = entries.length;
  const tableBots = new Map<string, string[]>();
  for (const x of played) tableBots.set(x.table_id, [...(tableBots.get(x.table_id) ?? []), x.bot_id]);
  const played1 = new Map<string, number>();
  const pairs = new Map<string, number>();
  for (const bots of tableBots.values()) {
    if (bots.length !== 2) continue;
    for (const b of bots) played1.set(b, (played1.get(b) ?? 0) + 1);
    const key = [...bots].sort().join("|");
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
  }
  let maxRatio = 0;
  let maxRatioExpected = 0;
  let maxPair = "";
  const house = new Set(entries.filter((e) => !remoteIds.has(e.bot_id) && !builtinEnteredAt.has(e.bot_id)).map((e) => e.bot_id));
  const kind = (bot: string) => (remoteIds.has(bot) ? "a remote bot" : house.has(bot) ? "a house built-in" : "a built-in");
  let maxRatioAtLeastOne = 0;
  let pairsAtLeastOne = 0;
  for (const [key, count] of pairs) {
    const [a, b] = key.split("|") as [string, string];
    const expected = ((played1.get(a) ?? 0) + (played1.get(b) ?? 0)) / 2 / (n - 1);
    const ratio = count / expected;
    if (ratio > maxRatio) [maxRatio, maxRatioExpected, maxPair] = [ratio, expected, `${kind(a)} and ${kind(b)}, met ${count} times, of ${played1.get(a)} and ${played1.get(b)} matches`];
    if (expected >= 1) {
      pairsAtLeastOne++;
      maxRatioAtLeastOne = Math.max(maxRatioAtLeastOne, ratio);
    }
  }
  const meanPlayed = [...played1.values()].reduce((a, b) => a + b, 0) / Math.max(1, played1.size);

  // Rating gap: actual pairings vs every pair of bots of different developers (final ratings).
  const rating = new Map(ratings.map((r) => [r.bot_id, r.rating]));
  const developer = new Map(entries.map((e) => [e.bot_id, e.developer_id]));
  const gapOf = (a: string, b: string) => Math.abs((rating.get(a) ?? 0) - (rating.get(b) ?? 0));
  let actual = 0;
  let actualN = 0;
  for (const [key, count] of pairs) {
    const [a, b] = key.split("|") as [string, string];
    actual += gapOf(a, b) * count;
    actualN += count;
  }
  let random = 0;
  let randomN = 0;
  const ids = entries.map((e) => e.bot_id);
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++)
      if (developer.get(ids[i]!) !== developer.get(ids[j]!)) {
        random += gapOf(ids[i]!, ids[j]!);
        randomN++;
      }

  // Double seatings: a bot with two seats whose times overlap (any ladder seat, filled or not).
  let overlaps = 0;
  const allByBot = new Map<string, SeatRow[]>();
  for (const x of seats) allByBot.set(x.bot_id, [...(allByBot.get(x.bot_id) ?? []), x]);
  for (const list of allByBot.values())
    for (let i = 1; i < list.length; i++) if ((list[i - 1]!.closed_at?.getTime() ?? Infinity) > list[i]!.opened_at.getTime()) overlaps++;

  // Throughput in the window, and where the bots' time went.
  const done = matches.filter((m) => m.status === "completed" && m.ended_at && m.ended_at.getTime() >= t0 && m.ended_at.getTime() <= tEnd);
  const minutes = (tEnd - t0) / 60_000;
  const hands = done.reduce((a, m) => a + m.hands_played, 0);
  let seatedMs = 0;
  for (const x of played) seatedMs += Math.max(0, Math.min(x.closed_at?.getTime() ?? tEnd, tEnd) - Math.max(x.opened_at.getTime(), t0));
  return {
    n,
    firstRemote,
    firstBuiltin,
    neverPlayed: n - byBot.size,
    gapsRemote,
    gapsBuiltin,
    gapsAcrossKill,
    pairsMet: pairs.size,
    meanPlayed,
    maxRatio,
    maxRatioExpected,
    maxPair,
    maxRatioAtLeastOne,
    pairsAtLeastOne,
    ratingGapActual: actual / Math.max(1, actualN),
    ratingGapRandom: random / Math.max(1, randomN),
    overlaps,
    openTwice: openTwice.length,
    doubledTables: doubledTables.length,
    matchesDone: done.length,
    matchesPerMin: done.length / minutes,
    handsPerSec: hands / (minutes * 60),
    matchMs: done.map((m) => m.ended_at!.getTime() - m.started_at.getTime()),
    seatedShare: seatedMs / (n * (tEnd - t0)),
    minutes,
  };
}
