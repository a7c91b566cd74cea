/** Shared pieces of the benchmarks: a real server process, a fresh database, a load loop. */
import { readFileSync } from "node:fs";
import { createTestDatabase } from "../tests/support/db";
import { ROOT, spawnMain } from "../tests/support/process";

export { ROOT };
export const CHEAP_PASSWORDS = { PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1", AUTH_RATE_LIMIT_PER_MINUTE: "1000000", REGISTRATIONS_PER_ADDRESS_PER_DAY: "1000000" };

export interface ServerProcess {
  url: string;
  /** Milliseconds from spawn until /health answered 200. */
  startToHealthyMs: number;
  /** The server's process id (its memory, from /proc). */
  pid: number;
  /** CPU time the server process has used so far (user + system, from /proc), in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** Spawns `bun src/main.ts` (the tests' helper) and waits until /health answers. */
export async function spawnServer(env: Record<string, string>, command?: string[]): Promise<ServerProcess> {
  const started = performance.now();
  const { child, url } = await spawnMain(env, undefined, command);
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) await Bun.sleep(2);
  const startToHealthyMs = performance.now() - started;
  return {
    url,
    startToHealthyMs,
    pid: child.pid,
    cpuMs: () => processCpuMs(child.pid),
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** utime + stime of a process from /proc/<pid>/stat (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A fresh Postgres database for one benchmark run (the tests' helper). */
export const freshDatabase = (label: string) => createTestDatabase(label);

/** Runs `work` from `clients` concurrent loops until `total` calls are done; returns calls per second. */
export async function load(clients: number, total: number, work: (client: number, i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = next++; i < total; i = next++) await work(client, i);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** The last line of a benchmark script's output, parsed as JSON. */
export async function runBenchScript(script: string, env: Record<string, string> = {}): Promise<Record<string, number>> {
  const child = Bun.spawn(["bun", "run", script], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`${script} failed: ${output}`);
  const lines = output.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

/** Runs `work` while probing `${url}/health` every 5 ms; returns its result and the slowest probe (ms). */
export async function whileProbingHealth<T>(url: string, work: () => Promise<T>): Promise<{ result: T; ms: number; slowestHealthMs: number }> {
  let done = false;
  let slowestHealthMs = 0;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${url}/health`);
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      await Bun.sleep(5);
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: Math.round(performance.now() - started), slowestHealthMs: Math.round(slowestHealthMs) };
  } finally {
    done = true;
    await probe;
  }
}

/** One JSON call to a running server; a non-2xx answer throws with its body. */
export async function api(url: string, method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}
