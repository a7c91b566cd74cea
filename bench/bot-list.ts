/**
 * GET /api/bots with BENCH_BOTS registered bots (default 100,000; issue 16): time and bytes per
 * request for the whole list (first, then kept), a conditional request (304), and a page of 100,
 * with the slowest /health answered meanwhile. Bots are written straight into the database.
 * Figures only.
 */
import postgres from "postgres";
import { callApi } from "../tests/support/http";
import { CHEAP_PASSWORDS, freshDatabase, spawnServer, whileProbingHealth } from "./support";

const TOTAL = Number(process.env.BENCH_BOTS ?? 100_000);
const database = await freshDatabase(`bench_bots_${process.pid}`);
const server = await spawnServer({ ...CHEAP_PASSWORDS, DATABASE_URL: database.url });

async function timed(path: string, headers: Record<string, string> = {}) {
  const { result, ms, slowestHealthMs } = await whileProbingHealth(server.url, async () => {
    const response = await fetch(`${server.url}${path}`, { headers });
    return { status: response.status, bytes: (await response.arrayBuffer()).byteLength, etag: response.headers.get("etag") ?? "" };
  });
  return { ...result, ms, slowestHealthMs };
}

try {
  const developerId = (await callApi(server.url, "POST", "/api/auth/register", { body: { email: "bench@example.com", password: "bench-password" } })).body.developer.developerId;
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  await sql`insert into bots (id, developer_id, name, description, api_key_hash, created_at)
    select 'bot_bench_' || lpad(n::text, 7, '0'), ${developerId}, 'bench bot ' || n, 'a bot of the benchmark', 'hash-' || n, now() - make_interval(secs => ${TOTAL} - n)
    from generate_series(1, ${TOTAL}) n`;
  await sql.end();
  const rows = [];
  const first = await timed("/api/bots");
  rows.push({ request: "whole list, first", ...first });
  for (let i = 0; i < 5; i++) rows.push({ request: "whole list, kept", ...(await timed("/api/bots")) });
  for (let i = 0; i < 5; i++) rows.push({ request: "If-None-Match (304)", ...(await timed("/api/bots", { "if-none-match": first.etag })) });
  for (let i = 0; i < 5; i++) rows.push({ request: "page of 100", ...(await timed(`/api/bots?limit=100&after=bot_bench_${String(TOTAL / 2).padStart(7, "0")}`)) });
  console.log(`GET /api/bots with ${TOTAL.toLocaleString("en")} bots`);
  console.table(rows.map((r) => ({ request: r.request, status: r.status, "MB": (r.bytes / 1e6).toFixed(2), "ms": r.ms.toFixed(1), "slowest /health ms": r.slowestHealthMs.toFixed(1) })));
} finally {
  await server.stop();
  await database.drop();
}
