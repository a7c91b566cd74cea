/** Shared pieces of the benchmarks: a real server process, a fresh database, a load loop. */
import { join } from "node:path";
import postgres from "postgres";

export const ROOT = join(import.meta.dir, "..");
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const CHEAP_PASSWORDS = { PASSWORD_MEMORY_COST_KIB: "256", PASSWORD_TIME_COST: "1", AUTH_RATE_LIMIT_PER_MINUTE: "1000000" };

export interface ServerProcess {
  url: string;
  /** Milliseconds from spawn until /health answered 200. */
  startToHealthyMs: number;
  stop(): Promise<void>;
}

/** Spawns `bun src/main.ts` and waits until /health answers. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const started = performance.now();
  const child = Bun.spawn(["bun", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  let output = "";
  while (!/listening on (\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done);
  })().catch(() => {});
  const url = /listening on (\S+)/.exec(output)![1];
  while (!(await fetch(`${url}/health`).then((r) => r.ok, () => false))) await Bun.sleep(2);
  const startToHealthyMs = performance.now() - started;
  return {
    url,
    startToHealthyMs,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

export async function freshDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const again = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

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
