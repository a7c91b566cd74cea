/**
 * `bun run bench:capacity`: one node holding 10,000 idle bot WebSockets (opened by a separate load
 * process) and 1,000 waiting tables, on Postgres. Prints how long until every socket was welcomed,
 * the server's RSS, and what one idle connection, one waiting table and one idle account actor
 * cost in resident memory (RSS deltas, so figures are approximate). Loopback only, bounded counts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnMain } from "../tests/support/process";
import { api, CHEAP_PASSWORDS, freshDatabase, ROOT } from "./support";

const BOTS = Number(process.env.BENCH_CAPACITY_BOTS ?? 10_000);
const TABLES = Number(process.env.BENCH_CAPACITY_TABLES ?? 1_000);
const DEVELOPERS = Number(process.env.BENCH_CAPACITY_DEVELOPERS ?? 250);
const PARALLEL = 32;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;


/** Runs `work(i)` for i in [0, count) from PARALLEL loops. */
async function each(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    for (let i = next++; i < count; i = next++) await work(i);
  }));
}

/** RSS after the server has been idle a moment (lets the allocator settle a little). */
async function settledRss(pid: number): Promise<number> {
  await Bun.sleep(1_500);
  return rssOf(pid);
}

const database = await freshDatabase(`bench_capacity_${process.pid}`);
const server = await spawnMain({ ...CHEAP_PASSWORDS, DATABASE_URL: database.url, ACCOUNT_IDLE_MS: "600000", MAX_BOTS_PER_DEVELOPER: "1000", MAX_OPEN_TABLES_PER_DEVELOPER: "100" });
const pid = server.child.pid;
const figures: Record<string, number | string> = {};
try {
  const tokens: string[] = new Array(DEVELOPERS);
  await each(DEVELOPERS, async (i) => {
    tokens[i] = (await api(server.url, "POST", "/api/auth/register", { email: `cap${i}@bench.example`, password: "bench-password" })).token;
  });
  // Warm every code path first (JIT, pools, caches), so the deltas below count state, not code.
  const WARM = 10;
  await each(WARM, (i) => api(server.url, "POST", "/api/me/balance/faucet", undefined, tokens[i]));
  await each(WARM, (i) => api(server.url, "POST", "/api/tables", { maxPlayers: 10, buyIn: 100, smallBlind: 1, bigBlind: 2 }, tokens[i]));
  // Registration leaves no actor; idle ones age out after ACCOUNT_IDLE_MS (10 min here).
  const beforeActors = await settledRss(pid);
  await each(DEVELOPERS - WARM, (i) => api(server.url, "POST", "/api/me/balance/faucet", undefined, tokens[WARM + i]));
  const afterActors = await settledRss(pid);
  await each(TABLES - WARM, (i) => api(server.url, "POST", "/api/tables", { maxPlayers: 10, buyIn: 100, smallBlind: 1, bigBlind: 2 }, tokens[i % DEVELOPERS]));
  const afterTables = await settledRss(pid);
  const keys: string[] = new Array(BOTS);
  await each(BOTS, async (i) => {
    keys[i] = (await api(server.url, "POST", "/api/bots", { name: `cap-bot-${i}` }, tokens[i % DEVELOPERS])).apiKey;
  });
  const beforeSockets = await settledRss(pid);
  const keysFile = join(tmpdir(), `capacity-keys-${process.pid}.json`);
  writeFileSync(keysFile, JSON.stringify(keys));
  const loader = Bun.spawn(["bun", "bench/capacity-load.ts", `${server.url.replace("http", "ws")}/api/bots/connect`, keysFile], { cwd: ROOT, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = (loader.stdout as ReadableStream<Uint8Array>).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    line += new TextDecoder().decode(value);
  }
  const load = JSON.parse(line.trim());
  const withSockets = await settledRss(pid);
  loader.stdin!.end();
  await loader.exited;
  Object.assign(figures, {
    socketsWelcomed: `${load.welcomed} of ${load.sockets} (${load.failed} failed)`,
    secondsToLastWelcome: (load.msToLastWelcome / 1000).toFixed(2),
    serverRss: mib(withSockets),
    bytesPerIdleConnection: Math.round((withSockets - beforeSockets) / Math.max(1, load.welcomed)),
    bytesPerWaitingTable: Math.round((afterTables - afterActors) / (TABLES - WARM)),
    bytesPerIdleAccountActor: Math.round((afterActors - beforeActors) / (DEVELOPERS - WARM)),
  });
} finally {
  server.child.kill("SIGTERM");
  await server.child.exited;
  await database.drop();
}
console.log(`${BOTS.toLocaleString()} bot sockets, ${TABLES.toLocaleString()} waiting tables, ${DEVELOPERS} account actors on one node:`);
for (const [name, value] of Object.entries(figures)) console.log(`  ${name}: ${value}`);
console.log(JSON.stringify(figures));
