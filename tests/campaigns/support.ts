/** Shared helpers for the load / fault / fuzz campaigns (tests/campaigns). */
import { sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../src/db";
import { TEST_ENV } from "../support/app";
import { ROOT, spawnMain, type ChildServer } from "../support/process";

export { ROOT };

/** mulberry32: a tiny seeded PRNG, so a campaign can be replayed from its printed seed. */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Picks a key by weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let roll = this.next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    return entries[entries.length - 1][0];
  }
}

export function seedFrom(envName: string): number {
  const raw = process.env[envName];
  if (raw !== undefined && raw !== "") return Number(raw) >>> 0;
  return (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
}

export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

import { callApi, type ApiResult } from "../support/http";

export { callApi, type ApiResult };

export interface ServerProcess extends ChildServer {
  hostId: string;
  api(method: string, path: string, options?: { body?: unknown; token?: string }): Promise<ApiResult>;
}

/** Spawns `bun src/main.ts` on the given database as host `hostId`. */
export async function spawnServer(databaseUrl: string, hostId: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await spawnMain({ ...TEST_ENV, DATABASE_URL: databaseUrl, HOST_ID: hostId, ...env });
  return { ...server, hostId, api: (method, path, options) => callApi(server.url, method, path, options) };
}

/** Rows of a raw query on either driver (the service's own helper). */
export const rowsOf = queryRows as <T = any>(db: Queryable, query: ReturnType<typeof sql>) => Promise<T[]>;

export interface DeveloperBooks {
  id: string;
  balance: number;
  openChips: number;
  grants: number;
  grantCount: number;
  /** Sum of profit over the developer's players in completed matches (match_players; a player's developer is its bot's). */
  matchProfit: number;
  /** Net of closed seats that are not part of a completed match: left a waiting table (0), aborted tables. */
  otherNet: number;
  /** Chips won or lost so far by its open seats (0 at waiting tables; a match may be under way). */
  openNet: number;
}

/** Per developer: balance, chips in its open seats, its faucet grants (sum and count) and its winnings. */
export async function developerBooks(db: Queryable): Promise<DeveloperBooks[]> {
  const rows = await rowsOf<Record<string, string>>(
    db,
    sql`select d.id, d.balance::text as balance,
          (select coalesce(sum(s.chips), 0) from seats s where coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) = d.id and s.status = 'open')::text as open_chips,
          (select coalesce(sum(s.chips - s.buy_in), 0) from seats s where coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) = d.id and s.status = 'open')::text as open_net,
          (select coalesce(sum(t.amount), 0) from transactions t where t.developer_id = d.id and t.type = 'faucet')::text as grants,
          (select count(*) from transactions t where t.developer_id = d.id and t.type = 'faucet')::text as grant_count,
          (select coalesce(sum(p.profit), 0) from match_players p join bots b on b.id = p.bot_id join matches m on m.id = p.match_id
             where b.developer_id = d.id and m.status = 'completed')::text as match_profit,
          (select coalesce(sum(s.cashout - s.buy_in), 0) from seats s
             where coalesce(s.developer_id, (select b.developer_id from bots b where b.id = s.bot_id)) = d.id and s.status = 'closed'
               and not exists (select 1 from transactions t join match_players p on p.match_id = t.match_id and p.bot_id = s.bot_id
                               join matches m on m.id = p.match_id
                               where t.seat_seq = s.seq and t.type = 'cashout' and m.status = 'completed'))::text as other_net
        from developers d order by d.id`,
  );
  return rows.map((r) => ({
    id: r.id,
    balance: Number(r.balance),
    openChips: Number(r.open_chips),
    grants: Number(r.grants),
    grantCount: Number(r.grant_count),
    matchProfit: Number(r.match_profit),
    otherNet: Number(r.other_net),
    openNet: Number(r.open_net),
  }));
}

/**
 * Every credit accounted for, per developer: no negative balance, and
 *   balance + chips of its open seats = its faucet grants + its winnings,
 * where winnings come from the match records (profit of its players in completed matches) plus
 * the net of its other closed seats (0 for leaving a waiting table; chips at the last written
 * hand for aborted tables) plus what its open seats have won or lost so far in a match still
 * being played. Chips move between developers only through matches: completed ones, whose
 * profits sum to 0 (checked by matchProblems). Also: a completed match's players' seats are closed
 * with cashout = finalChips.
 */
export async function perDeveloperProblems(db: Queryable): Promise<string[]> {
  const problems: string[] = [];
  for (const d of await developerBooks(db)) {
    if (d.balance < 0) problems.push(`${d.id}: negative balance ${d.balance}`);
    if (d.balance + d.openChips !== d.grants + d.matchProfit + d.otherNet + d.openNet) {
      problems.push(
        `${d.id}: balance ${d.balance} + open seats ${d.openChips} != grants ${d.grants} + match profit ${d.matchProfit} + other seats ${d.otherNet} + open seats' play so far ${d.openNet}`,
      );
    }
  }
  const mismatched = await rowsOf<{ match_id: string; bot_id: string }>(
    db,
    // A player's seat is the seat of its bot whose cashout row names the match (match_players stores no seat: issue 35).
    // Its developer is its bot's (match_players stores none either).
    sql`select p.match_id, p.bot_id from match_players p join bots b on b.id = p.bot_id
          left join (seats s join transactions t on t.seat_seq = s.seq and t.type = 'cashout') on t.match_id = p.match_id and s.bot_id = p.bot_id
        where s.seq is null or s.status <> 'closed' or s.cashout <> p.final_chips or s.buy_in <> p.buy_in or t.developer_id <> b.developer_id limit 20`,
  );
  for (const m of mismatched) problems.push(`match ${m.match_id} bot ${m.bot_id}: seat does not match the match record`);
  const leftWaiting = await rowsOf<{ id: string }>(
    db,
    sql`select s.seq::text as id from seats s join tables t on t.id = s.table_id
        where s.status = 'closed' and s.cashout <> s.buy_in and t.status in ('waiting', 'finished')
          and not exists (select 1 from transactions t join match_players p on p.match_id = t.match_id and p.bot_id = s.bot_id where t.seat_seq = s.seq and t.type = 'cashout') limit 20`,
  );
  for (const s of leftWaiting) problems.push(`seat ${s.id}: left a waiting table with other than its buy-in`);
  return problems;
}

/** Completed matches conserve chips (sum finalChips = sum buy-ins; profits sum to 0). */
export async function matchProblems(db: Queryable): Promise<string[]> {
  const bad = await rowsOf<{ id: string; finals: string; buyins: string }>(
    db,
    sql`select m.id, sum(p.final_chips)::text as finals, sum(p.buy_in)::text as buyins
        from matches m join match_players p on p.match_id = m.id
        where m.status = 'completed' group by m.id
        having sum(p.final_chips) <> sum(p.buy_in) or sum(p.profit) <> 0 limit 20`,
  );
  const missingPlayers = await rowsOf<{ id: string }>(
    db,
    sql`select m.id from matches m where m.status = 'completed' and not exists (select 1 from match_players p where p.match_id = m.id) limit 20`,
  );
  return [
    ...bad.map((m) => `match ${m.id}: final chips ${m.finals} vs buy-ins ${m.buyins}`),
    ...missingPlayers.map((m) => `match ${m.id}: completed without players`),
  ];
}

/** `bun run audit` as a child process against the database. */
export async function runAuditCli(databaseUrl: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(["bun", "run", "audit"], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_ENV, DATABASE_URL: databaseUrl },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

/** Bounded polling: resolves with the first truthy value, throws after timeoutMs. */
export async function pollUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(intervalMs);
  }
}

/** SPEC §8 error body, with nothing internal in it. Returns a problem or null. */
export function errorShapeProblem(body: any): string | null {
  if (typeof body !== "object" || body === null) return `not a JSON object: ${String(body).slice(0, 200)}`;
  const error = body.error;
  if (typeof error !== "object" || error === null) return `no error object: ${JSON.stringify(body).slice(0, 200)}`;
  if (typeof error.code !== "string" || !/^[A-Z][A-Z_]*$/.test(error.code)) return `bad code: ${JSON.stringify(error.code)}`;
  if (typeof error.message !== "string") return `bad message: ${JSON.stringify(error.message)}`;
  const leak = internalsLeak(JSON.stringify(body));
  if (leak) return `leaks internals (${leak}): ${JSON.stringify(body).slice(0, 300)}`;
  return null;
}

/**
 * /mcp speaks JSON-RPC (the Model Context Protocol): a request the MCP transport refuses is a 4xx
 * whose body is a JSON-RPC error (an integer code, a message; docs/INTEROP.md); what every route's
 * guards refuse first (a missing or bad token, a foreign Origin, the body's size, media type, JSON,
 * depth) answers the API's §8 body. Either shape, nothing internal. Returns a problem or null.
 */
export function jsonRpcErrorProblem(status: number, body: any): string | null {
  if (status === 401 || status === 403 || (typeof body?.error?.code === "string" && !("jsonrpc" in body))) return errorShapeProblem(body);
  if (typeof body !== "object" || body === null || body.jsonrpc !== "2.0") return `not a JSON-RPC answer: ${JSON.stringify(body).slice(0, 200)}`;
  const error = body.error;
  if (typeof error !== "object" || error === null || !Number.isInteger(error.code) || typeof error.message !== "string") return `not a JSON-RPC error: ${JSON.stringify(body).slice(0, 200)}`;
  const leak = internalsLeak(JSON.stringify(body));
  return leak ? `leaks internals (${leak}): ${JSON.stringify(body).slice(0, 300)}` : null;
}

/** Stack traces, SQL, file paths, driver names in a response body. */
export function internalsLeak(text: string): string | null {
  const patterns: Array<[string, RegExp]> = [
    ["stack frame", /\bat\s+\S+\s+\(?[^)]*:\d+:\d+\)?/],
    ["source path", /\.(ts|js|mjs|tsx)(:\d+)?\b/],
    ["absolute path", /\/(work|home|usr|tmp|root|node_modules|src)\//],
    ["sql", /\b(select\s+.+\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from)\b/i],
    ["driver", /\b(postgres(ql)?|drizzle|pglite|sqlstate|pg_)\b/i],
    ["js error", /\b(TypeError|ReferenceError|SyntaxError|RangeError):/],
  ];
  for (const [name, pattern] of patterns) if (pattern.test(text)) return name;
  return null;
}
