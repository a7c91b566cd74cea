import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { openDatabase } from "../../src/db";
import { ManualClock } from "../../src/lib/clock";
import { harnessFor, testConfig, TEST_ENV } from "../support/app";
import { ROOT, spawnMain } from "../support/process";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const dirs: string[] = [];
/** Servers this file started: a failed assertion must not leave one running (and its directory locked). */
const servers: Array<{ kill(signal?: "SIGKILL"): void }> = [];
afterAll(() => {
  for (const server of servers) server.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("embedded PGlite (what a newcomer gets)", () => {
  test("in-memory PGlite: register → faucet → balance, audit clean", async () => {
    const database = await openDatabase({ pgliteDir: "memory://" });
    expect(database.kind).toBe("pglite");
    const config = testConfig();
    const clock = new ManualClock();
    const app = createApp({ db: database.db, dbKind: database.kind, config, jwtSecret: "s", clock, log: () => {} });
    const h = harnessFor(app, database, clock, config);
    try {
      expect((await h.call("GET", "/health")).body).toMatchObject({ status: "ok", db: "pglite", role: "single", peers: [] });
      const dev = await h.registerDeveloper();
      expect((await h.call("POST", "/api/me/balance/faucet", { token: dev.token })).body.newBalance).toBe(10_000);
      expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body).toMatchObject({ balance: 10_000, canClaimFaucet: false });
      await h.expectAuditClean();
    } finally {
      await app.services.accounts.stopAll();
      await database.close();
    }
  });

  test("the real entry point on a PGlite directory: healthy, keeps data and token across a restart, exits 0 on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pglite-smoke-"));
    dirs.push(dir);
    const boot = async () => {
      const started = await spawnMain({ ...TEST_ENV, PGLITE_DIR: join(dir, "db"), DATABASE_URL: "" });
      servers.push(started.child);
      return started;
    };

    const first = await boot();
    // A first start says what it is doing before it listens; later starts do not.
    expect(first.stdout()).toMatch(/^first start: creating the embedded database in \S+ \(from the snapshot built at install/);
    expect(await (await fetch(`${first.url}/health`)).json()).toMatchObject({ status: "ok", db: "pglite", role: "single", peers: [] });
    const registered = await fetch(`${first.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "smoke@example.com", password: "smoke-test-pw" }),
    });
    const { token } = (await registered.json()) as { token: string };
    const claim = await fetch(`${first.url}/api/me/balance/faucet`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    expect(claim.status).toBe(200);
    first.child.kill("SIGTERM");
    expect(await first.child.exited).toBe(0);

    const second = await boot();
    expect(second.stdout()).not.toContain("first start");
    const balance = await fetch(`${second.url}/api/me/balance`, { headers: { authorization: `Bearer ${token}` } });
    expect(balance.status).toBe(200);
    expect(((await balance.json()) as { balance: number }).balance).toBe(10_000);

    // One process per directory: a second server and the audit refuse at once while it runs, touching nothing.
    const env = { ...process.env, ...TEST_ENV, PGLITE_DIR: join(dir, "db"), DATABASE_URL: "", PORT: "0" };
    const refused = async (script: string) => {
      const child = Bun.spawn(["bun", script], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
      return { code, stderr };
    };
    const audit = await refused("src/audit.ts");
    expect(audit.code).toBe(2);
    expect(audit.stderr).toContain(`is in use by process ${second.child.pid}`);
    const another = await refused("src/main.ts");
    expect(another.code).toBe(1);
    expect(another.stderr).toContain("one process per PGlite directory");
    expect(another.stderr).not.toContain("resumed");
    second.child.kill("SIGTERM");
    expect(await second.child.exited).toBe(0);
    // Released on a clean stop; a SIGKILLed owner's lock is stale and taken over.
    const auditAfter = await refused("src/audit.ts");
    expect([auditAfter.code, auditAfter.stderr]).toEqual([0, ""]);
    const third = await boot();
    third.child.kill("SIGKILL");
    await third.child.exited;
    expect((await refused("src/audit.ts")).code).toBe(0);
  }, 60_000);
});
