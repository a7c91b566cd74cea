/**
 * `bun run bench:ledger`: durable ledger operations per second over HTTP (each buy-in and each
 * leave is one request and one SQL transaction), 32 clients, against `pgbench` tpcb-like with 32
 * clients on the same Postgres in the same run. Prints a line, then {"opsPerSec", "pgbenchTps"}.
 */
import { api, freshDatabase, load, spawnServer, CHEAP_PASSWORDS } from "./support";

export const LEDGER_CLIENTS = 32;
const LEDGER_OPERATIONS = Number(process.env.BENCH_LEDGER_OPERATIONS ?? 12_000);
const PGBENCH_SECONDS = Number(process.env.BENCH_PGBENCH_SECONDS ?? 8);

export async function pgbenchTps(databaseUrl: string): Promise<number> {
  const init = Bun.spawn(["pgbench", "-i", "-q", "-s", "10", databaseUrl], { stdout: "ignore", stderr: "ignore" });
  if ((await init.exited) !== 0) throw new Error("pgbench -i failed");
  const run = Bun.spawn(["pgbench", "-c", String(LEDGER_CLIENTS), "-j", "2", "-T", String(PGBENCH_SECONDS), databaseUrl], { stdout: "pipe", stderr: "ignore" });
  const output = await new Response(run.stdout).text();
  await run.exited;
  const match = /tps = ([\d.]+)/.exec(output);
  if (!match) throw new Error(`pgbench gave no tps: ${output}`);
  return Number(match[1]);
}

/** Buy-ins and leaves per second: each is one HTTP request and one durable SQL transaction. */
export async function ledgerOperationsPerSec(url: string): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: LEDGER_CLIENTS }, async (_, i) => {
      const { token } = await api(url, "POST", "/api/auth/register", { email: `ledger${i}@bench.example`, password: "bench-password" });
      await api(url, "POST", "/api/me/balance/faucet", undefined, token);
      const { botId } = await api(url, "POST", "/api/bots", { name: `ledger${i}`, strategy: "caller" }, token);
      const { tableId } = await api(url, "POST", "/api/tables", { maxPlayers: 10, buyIn: 100, smallBlind: 1, bigBlind: 2 }, token);
      return { token, botId, tableId };
    }),
  );
  const pairsPerSec = await load(LEDGER_CLIENTS, LEDGER_OPERATIONS / 2, async (c) => {
    const { token, botId, tableId } = clients[c];
    await api(url, "POST", `/api/tables/${tableId}/join`, { botId }, token);
    await api(url, "POST", `/api/tables/${tableId}/leave`, { botId }, token);
  });
  return 2 * pairsPerSec;
}

export const LEDGER_SERVER_ENV = { ...CHEAP_PASSWORDS, FAUCET_AMOUNT: "100000000" };

if (import.meta.main) {
  const database = await freshDatabase(`bench_ledger_${process.pid}`);
  try {
    // SERVER_COMMAND (e.g. "bun --cpu-prof src/main.ts") profiles the server under this load.
    const command = process.env.SERVER_COMMAND?.split(" ");
    const server = await spawnServer({ ...LEDGER_SERVER_ENV, DATABASE_URL: database.url }, command);
    let opsPerSec: number;
    let serverCpuMs: number;
    try {
      const cpuBefore = server.cpuMs();
      opsPerSec = await ledgerOperationsPerSec(server.url);
      serverCpuMs = server.cpuMs() - cpuBefore;
    } finally {
      await server.stop();
    }
    const tps = await pgbenchTps(database.url);
    // The server's CPU per operation moves less with the machine's load than the rate does (setup included: 32 sign-ups).
    const serverMicrosPerOp = Math.round((serverCpuMs * 1000) / LEDGER_OPERATIONS);
    console.log(`ledger: ${Math.round(opsPerSec)} durable operations/s over HTTP vs pgbench tpcb ${Math.round(tps)} tps (${(opsPerSec / tps).toFixed(2)}×); server CPU ${serverMicrosPerOp} µs per operation`);
    console.log(JSON.stringify({ opsPerSec: Math.round(opsPerSec), pgbenchTps: Math.round(tps), serverMicrosPerOp }));
  } finally {
    await database.drop();
  }
}
