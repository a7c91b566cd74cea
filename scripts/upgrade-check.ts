/**
 * An upgrade in place, checked end to end: a database written by an older checkout's server
 * (OLD_SERVER_ROOT, e.g. a worktree of the commit before compact hands) — 30 completed matches of
 * every shape and one killed mid-match — is opened by this checkout's server: migration 0017, the
 * background conversion, the running match resumed (JSON rows before, chunks after). Prints
 * whether every match's JSON and PHH (anonymous and owner) are the same before and after, and
 * checks the resumed match's every card against its revealed secret. `OLD_SERVER_ROOT=… bun scripts/upgrade-check.ts`
 */
import postgres from "postgres";
import { createTestDatabase } from "../tests/support/db";
import { join } from "node:path";
import { ROOT, spawnMain } from "../tests/support/process";
import { firstMismatch } from "../src/cli/commands/verify";
const OLD_SERVER_ROOT = process.env.OLD_SERVER_ROOT;
if (!OLD_SERVER_ROOT) throw new Error("OLD_SERVER_ROOT: a checkout of the older version (its dependencies installed)");
const CHEAP = { PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1", AUTH_RATE_LIMIT_PER_MINUTE: "100000", REGISTRATIONS_PER_ADDRESS_PER_DAY: "100000", FAUCET_AMOUNT: "100000000", MAX_OPEN_TABLES_PER_DEVELOPER: "1000", HOST_ID: "local" };
const db = await createTestDatabase("old_db_check");
const sql = postgres(db.url, { max: 1, onnotice: () => {} });
const api = async (url: string, method: string, path: string, body?: unknown, token?: string) => {
  const r = await fetch(url + path, { method, headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await r.text();
  try { return { status: r.status, body: JSON.parse(text), text }; } catch { return { status: r.status, body: text, text }; }
};
const served = async (url: string, matchId: string, token: string) => {
  const out: string[] = [];
  for (const auth of [undefined, token]) for (let after = 0; ; ) {
    const page = await api(url, "GET", `/api/matches/${matchId}/hands?limit=1000&after=${after}`, undefined, auth);
    out.push(page.text);
    if (page.body.hands.length < 1000) break;
    after = page.body.hands.at(-1).handNumber;
  }
  out.push((await api(url, "GET", `/api/matches/${matchId}/hands?format=phh`)).text);
  out.push((await api(url, "GET", `/api/matches/${matchId}/hands?format=phh`, undefined, token)).text);
  return out;
};
try {
  const old = await spawnMain({ ...CHEAP, DATABASE_URL: db.url }, 30_000, ["bun", join(OLD_SERVER_ROOT, "src/main.ts")]);
  const { token } = (await api(old.url, "POST", "/api/auth/register", { email: "old@example.com", password: "correct horse battery" })).body;
  await api(old.url, "POST", "/api/me/balance/faucet", undefined, token);
  const shapes: Array<[Record<string, unknown>, string[]]> = [];
  for (let i = 0; i < 6; i++) {
    shapes.push([{ maxPlayers: 2, maxHands: 200, seed: `s${i}` }, ["caller", "tight"]]);
    shapes.push([{ maxPlayers: 6, maxHands: 200 }, ["random", "caller", "tight", "raiser", "random", "caller"]]);
    shapes.push([{ maxPlayers: 2, maxHands: 100, duplicate: true }, ["random", "tight"]]);
    shapes.push([{ maxPlayers: 10, maxHands: 150 }, ["random", "caller", "tight", "raiser", "random", "caller", "tight", "raiser", "caller", "tight"]]);
    shapes.push([{ maxPlayers: 3, maxHands: 200, buyIn: 300 }, ["raiser", "random", "caller"]]);
  }
  let n = 0;
  const tableIds: string[] = [];
  for (const [body, strategies] of shapes) {
    const table = (await api(old.url, "POST", "/api/tables", body, token)).body;
    tableIds.push(table.tableId);
    for (const strategy of strategies) {
      const bot = (await api(old.url, "POST", "/api/bots", { name: `b${n++}`, strategy }, token)).body;
      await api(old.url, "POST", `/api/tables/${table.tableId}/join`, { botId: bot.botId }, token);
    }
  }
  for (;;) {
    const [r] = await sql`select count(*)::int as n from matches where status = 'completed'`;
    if (r.n === shapes.length) break;
    await Bun.sleep(200);
  }
  const matchIds = (await api(old.url, "GET", "/api/matches?limit=200")).body.map((m: any) => m.matchId);
  const before = new Map<string, string[]>();
  for (const id of matchIds) before.set(id, await served(old.url, id, token));
  // A long match left running when the old server is killed.
  const long = (await api(old.url, "POST", "/api/tables", { maxPlayers: 2, maxHands: 20000, buyIn: 100000 }, token)).body;
  for (const strategy of ["caller", "caller"]) {
    const bot = (await api(old.url, "POST", "/api/bots", { name: `b${n++}`, strategy }, token)).body;
    await api(old.url, "POST", `/api/tables/${long.tableId}/join`, { botId: bot.botId }, token);
  }
  for (;;) { const [r] = await sql`select count(*)::int as n from hands h join tables t on t.match_id = h.match_id where t.id = ${long.tableId}`; if (r.n > 300) break; await Bun.sleep(20); }
  old.child.kill(9);
  await old.child.exited;
  const [legacy] = await sql`select count(*)::int as n, pg_total_relation_size('hands')::bigint as bytes from hands`;
  console.log(`old server: ${matchIds.length} completed matches, ${legacy.n} hands as JSON (${legacy.bytes} bytes with index: ${Math.round(legacy.bytes / legacy.n)} a hand); a long match killed mid-way`);
  const [{ plain }] = await sql`select count(*)::int as plain from matches where status = 'running' and deck_secret is not null`;
  console.log(`running matches with a plain deck secret before the upgrade: ${plain}`);

  const started = performance.now();
  const fresh = await spawnMain({ ...CHEAP, DATABASE_URL: db.url }, 60_000, ["bun", join(ROOT, "src/main.ts")]);
  for (;;) {
    const [r] = await sql`select (select count(*)::int from hands_legacy l join matches m on m.id = l.match_id where m.status = 'completed' and m.id = any(${matchIds})) as left, (select m.status from matches m join tables t on t.match_id = m.id where t.id = ${long.tableId}) as long`;
    if (r.left === 0 && r.long === "completed") break;
    await Bun.sleep(100);
  }
  console.log(`new server: conversion of completed matches done and the resumed match completed ${((performance.now() - started) / 1000).toFixed(1)} s after its start`);
  let same = 0;
  for (const id of matchIds) {
    const after = await served(fresh.url, id, token);
    if (JSON.stringify(after) === JSON.stringify(before.get(id))) same++;
    else console.log(`DIFFERENT: ${id}`);
  }
  console.log(`identical JSON (anonymous, owner) and PHH (anonymous, owner) before and after: ${same} of ${matchIds.length} matches`);
  if (same !== matchIds.length) process.exitCode = 1;
  const longMatch = (await sql`select m.id, m.hands_played, m.deck_secret is not null as revealed, m.deck_secret_sealed is null as unsealed from matches m join tables t on t.match_id = m.id where t.id = ${long.tableId}`)[0];
  const hands: any[] = [];
  for (let after = 0; ; ) { const page = (await api(fresh.url, "GET", `/api/matches/${longMatch.id}/hands?limit=1000&after=${after}`, undefined, token)).body.hands; if (page.length === 0) break; hands.push(...page); after = page.at(-1).handNumber; }
  const fairness = (await api(fresh.url, "GET", `/api/matches/${longMatch.id}/fairness`)).body;
  const [forms] = await sql`select (select count(*)::int from hands_legacy where match_id = ${longMatch.id}) as json, (select coalesce(sum(last_number - first_number + 1), 0)::int from hand_chunks where match_id = ${longMatch.id}) as chunked`;
  if (firstMismatch(fairness, hands) !== null || hands.length !== longMatch.hands_played) process.exitCode = 1;
  console.log(`the match running across the upgrade: ${longMatch.hands_played} hands (${forms.json} JSON rows from the old server, ${forms.chunked} in chunks), voided ${JSON.stringify(fairness.voidedHands)}, secret revealed ${longMatch.revealed} and sealed copy gone ${longMatch.unsealed}; verify: ${firstMismatch(fairness, hands) ?? "every card agrees"}; ${hands.length} hands served`);
  const [size] = await sql`select (select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint from pg_class c where c.relname like 'hand_chunks%' and c.relkind = 'r') as chunks, (select sum(last_number - first_number + 1)::int from hand_chunks) as hands`;
  console.log(`hand_chunks after: ${size.hands} hands in ${size.chunks} bytes with indexes (${Math.round(size.chunks / size.hands)} a hand, before VACUUM of hands_legacy's dead rows)`);
  fresh.child.kill("SIGTERM");
  await fresh.child.exited;
} finally {
  await sql.end();
  await db.drop();
}
