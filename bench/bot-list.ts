/**
 * GET /api/bots with BENCH_BOTS registered bots (default 100,000; issue 16): time and bytes per
 * request for the whole list (first, then kept), a conditional request (304), and a page of 100,
 * with the slowest /health answered meanwhile; then PARALLEL (200) whole-list requests at once,
 * plain and with `Accept-Encoding: br`: the server's peak RSS, the slowest /health meanwhile and
 * the statuses (issue 23: 200 such requests once took the server from 230 MB to 5 GB). Bots are
 * written straight into the database. Figures only.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { callApi } from "../tests/support/http";
import { CHEAP_PASSWORDS, freshDatabase, spawnServer, whileProbingHealth } from "./support";

const TOTAL = Number(process.env.BENCH_BOTS ?? 100_000);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 200);

/** Resident memory of a process, MB (VmRSS). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** PARALLEL whole-list requests at once, each body read and dropped as it streams in (the client keeps none). */
async function flood(headers: Record<string, string>) {
  let peakRss = rssMb(server.pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(server.pid))), 20);
  try {
    const { result, ms, slowestHealthMs } = await whileProbingHealth(server.url, () =>
      Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          const response = await fetch(`${server.url}/api/bots`, { headers, decompress: false } as RequestInit);
          let bytes = 0;
          for await (const chunk of response.body!) bytes += chunk.byteLength;
          return { status: response.status, bytes };
        }),
      ),
    );
    const statuses = Object.entries(Object.groupBy(result, (r) => String(r.status))).map(([status, rs]) => `${status}×${rs!.length}`).join(" ");
    return { statuses, mbEach: (result.find((r) => r.status === 200)?.bytes ?? 0) / 1e6, ms, slowestHealthMs, peakRss };
  } finally {
    clearInterval(sampler);
  }
}
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
  const idleRss = rssMb(server.pid);
  const floods = [];
  for (const [label, headers] of [["plain", {}], ["br", { "accept-encoding": "br" }], ["gzip", { "accept-encoding": "gzip" }]] as const) floods.push({ label, ...(await flood(headers)) });
  console.log(`${PARALLEL} parallel whole-list requests (server RSS before: ${idleRss.toFixed(0)} MB)`);
  console.table(floods.map((f) => ({ encoding: f.label, statuses: f.statuses, "MB each": f.mbEach.toFixed(2), "all done ms": f.ms, "slowest /health ms": f.slowestHealthMs, "peak RSS MB": f.peakRss.toFixed(0) })));
} finally {
  await server.stop();
  await database.drop();
}
