/**
 * GET /api/matches/:id/hands on a long match (issue 16): bytes and time per request, and the
 * slowest /health answered meanwhile, for the default JSON page, the largest JSON page and the
 * streamed PHH page. The match is a real 200-hand match whose hands are then copied (renumbered)
 * up to BENCH_HANDS (default 20,000). BENCH_KEEP_DB=1 keeps the database and prints its URL, to
 * point another build at the same data. Figures only.
 */
import postgres from "postgres";
import { callApi } from "../tests/support/http";
import { CHEAP_PASSWORDS, freshDatabase, spawnServer, whileProbingHealth } from "./support";

const TOTAL = Number(process.env.BENCH_HANDS ?? 20_000);
const database = await freshDatabase(`bench_hands_${process.pid}`);
const server = await spawnServer({ ...CHEAP_PASSWORDS, DATABASE_URL: database.url });
const api = (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(server.url, method, path, options);

async function timed(path: string) {
  const { result, ms, slowestHealthMs } = await whileProbingHealth(server.url, async () => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, bytes: (await response.arrayBuffer()).byteLength, link: response.headers.get("link") };
  });
  return { ...result, ms, slowestHealthMs };
}

try {
  const token = (await api("POST", "/api/auth/register", { body: { email: "bench@example.com", password: "bench-password" } })).body.token;
  await api("POST", "/api/me/balance/faucet", { token });
  const table = (await api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 200, buyIn: 2000, seed: "bench" } })).body;
  for (const name of ["a", "b"]) {
    const bot = (await api("POST", "/api/bots", { token, body: { name, strategy: "caller" } })).body;
    await api("POST", `/api/tables/${table.tableId}/join`, { token, body: { botId: bot.botId } });
  }
  let match: { matchId: string; handsPlayed: number } | undefined;
  while (!(match = (await api("GET", "/api/matches?limit=1")).body[0])) await Bun.sleep(50);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  const played = match.handsPlayed;
  await sql`insert into hands (match_id, number, history, created_at)
    select h.match_id, n, jsonb_set(h.history::jsonb, '{handNumber}', to_jsonb(n))::json, h.created_at from generate_series(${played + 1}::int, ${TOTAL}::int) n
    join hands h on h.match_id = ${match.matchId} and h.number = 1 + (n - 1) % ${played}`;
  await sql`update matches set hands_played = ${TOTAL} where id = ${match.matchId}`;
  await sql.end();
  const figures: Record<string, number> = { hands: TOTAL };
  for (const [name, path] of [
    ["jsonDefault", `/api/matches/${match.matchId}/hands`],
    ["jsonMax", `/api/matches/${match.matchId}/hands?limit=1000`],
    ["phh", `/api/matches/${match.matchId}/hands?format=phh`],
  ] as const) {
    const result = await timed(path);
    console.log(`${name.padEnd(12)} ${result.status} ${(result.bytes / 1e6).toFixed(2)} MB in ${result.ms} ms, slowest /health ${result.slowestHealthMs} ms, next: ${result.link ?? "none"}`);
    Object.assign(figures, { [`${name}Bytes`]: result.bytes, [`${name}Ms`]: result.ms, [`${name}SlowestHealthMs`]: result.slowestHealthMs });
  }
  if (process.env.BENCH_KEEP_DB) console.log(`database kept: ${database.url} match ${match.matchId}`);
  console.log(JSON.stringify(figures));
} finally {
  await server.stop();
  if (!process.env.BENCH_KEEP_DB) await database.drop();
}
