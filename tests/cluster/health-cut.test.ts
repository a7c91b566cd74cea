import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import postgres from "postgres";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { fundedDeveloper } from "../support/developers";
import { callApi, type ApiResult } from "../support/http";
import { until } from "../support/nodes";
import { spawnMain, type ChildServer } from "../support/process";
import { TcpProxy } from "../support/tcp-proxy";

// A node whose way to Postgres goes through a proxy the test blackholes (every byte held, every
// socket left open: the path of issue 32, item 12). /health must fail within seconds, requests that
// need the database must answer 503 instead of hanging (those in flight at the cut included), and
// everything must come back once the path heals. One node alone: nobody takes its lease over, so
// it serves again afterwards (with a peer, docs/SCALING.md: it leaves).
setDefaultTimeout(120_000);

let testDb: TestDatabase;
let proxy: TcpProxy;
let node: ChildServer;
beforeAll(async () => {
  testDb = await createTestDatabase("health_cut");
  const target = new URL(testDb.url);
  proxy = TcpProxy.start(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(testDb.url);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  node = await spawnMain({ ...TEST_ENV, DATABASE_URL: viaProxy.toString(), HOST_ID: "cut_node" });
});
afterAll(async () => {
  proxy?.restore();
  node?.child.kill("SIGTERM");
  await node?.child.exited;
  proxy?.stop();
  await testDb?.drop();
});

const api = (method: string, path: string, options: { body?: unknown; token?: string } = {}) => callApi(node.url, method, path, options);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function expectDatabaseUnavailable(response: ApiResult, what: string): void {
  expect({ what, status: response.status, code: response.body?.error?.code, retryAfter: response.headers.get("retry-after") }).toEqual({
    what,
    status: 503,
    code: "DATABASE_UNAVAILABLE",
    retryAfter: "2",
  });
}

describe("a database that is slow but answers", () => {
  test("requests wait for it (a lock held past the probe's timeout) and are answered; /health stays 200 throughout", async () => {
    const { token } = await fundedDeveloper((method, path, options) => api(method, path, options), { label: "slow" });
    // Two connections: one holds the lock, the other watches the node's session wait for it.
    const admin = postgres(testDb.url, { max: 2, onnotice: () => {} });
    try {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = admin.begin(async (tx) => {
        await tx`lock table developers in access exclusive mode`;
        locked();
        await released;
      });
      await isLocked;
      const balance = api("GET", "/api/me/balance", { token });
      await until(async () => (await admin`select 1 from pg_stat_activity where application_name like 'poker node%' and wait_event_type = 'Lock'`).length > 0, 20_000, "the request waiting on the lock");
      // Longer than the probe's timeout (3 s): the node stays healthy, the request keeps waiting.
      const since = performance.now();
      let probes = 0;
      await until(async () => {
        const health = await api("GET", "/health");
        expect(health.status).toBe(200);
        probes += 1;
        return performance.now() - since > 4_000;
      }, 30_000, "four seconds of a slow database");
      expect(probes).toBeGreaterThan(1);
      release();
      await holder;
      const answered = await balance;
      expect([answered.status, answered.body.balance]).toEqual([200, 10_000]);
    } finally {
      await admin.end();
    }
  });
});

describe("a node cut off from its database", () => {
  test("/health fails within seconds, requests answer 503 with Retry-After instead of hanging, and all recovers when the path heals", async () => {
    const { token } = await fundedDeveloper((method, path, options) => api(method, path, options), { label: "cut" });
    const healthy = await api("GET", "/health");
    expect(healthy.status).toBe(200);
    expect(healthy.body).toMatchObject({ status: "ok", db: "postgres", node: "cut_node", database: { reachable: true }, lease: { standing: true } });
    expect((await api("GET", "/health/ready")).status).toBe(200);

    const cutAt = performance.now();
    proxy.blackhole();
    // A request that needs the database, sent right after the cut: before, it hung until the path healed.
    const inFlight = api("GET", "/api/me/balance", { token }).then((response) => ({ response, ms: performance.now() - cutAt }));

    const unhealthy = await until(async () => {
      const response = await api("GET", "/health");
      return response.status === 503 ? { response, ms: performance.now() - cutAt } : null;
    }, 30_000, "/health to fail after the cut");
    expect(unhealthy.response.body).toMatchObject({ status: "unavailable", db: "postgres", node: "cut_node", database: { reachable: false }, error: { code: "UNHEALTHY" } });
    expect(unhealthy.response.body.reasons).toContain("the database does not answer this node");
    expect((await api("GET", "/health/ready")).status).toBe(503);
    // Operators see it too (the metrics are served during the cut).
    expect(await api("GET", "/metrics").then((r) => String(r.body))).toMatch(/\npoker_database_reachable\{node="cut_node"\} 0\n/);
    // Liveness: the process answers (a supervisor has nothing to restart).
    expect(await api("GET", "/health/live")).toMatchObject({ status: 200, body: { status: "ok" } });

    const answered = await Promise.race([inFlight, Bun.sleep(30_000).then(() => null)]);
    expect(answered).not.toBeNull();
    expectDatabaseUnavailable(answered!.response, "the request in flight at the cut");
    expect(answered!.response.body.error.message).toContain("may or may not have been applied");

    // New requests are refused at once, and nothing they asked for happens.
    let refused = 0;
    let slowestRefusalMs = 0;
    for (const [method, path, body] of [
      ["GET", "/api/me/balance", undefined],
      ["POST", "/api/bots", { name: "made-during-the-cut" }],
      ["GET", "/api/tables", undefined],
      ["GET", "/api/bots", undefined],
    ] as const) {
      const started = performance.now();
      expectDatabaseUnavailable(await api(method, path, { token, body }), `${method} ${path}`);
      slowestRefusalMs = Math.max(slowestRefusalMs, performance.now() - started);
      refused += 1;
    }
    expect(refused).toBe(4);

    // Renewals are overdue: the lease no longer stands (its tables pause), and /health says so too.
    const leaseDown = await until(async () => {
      const body = (await api("GET", "/health")).body;
      return body.lease?.standing === false ? body : null;
    }, 30_000, "the lease to stop standing");
    expect(leaseDown.reasons).toContain("this node's lease does not stand (renewals overdue)");

    const restoredAt = performance.now();
    proxy.restore();
    await until(async () => (await api("GET", "/health")).status === 200, 30_000, "/health to recover");
    const recoveredMs = performance.now() - restoredAt;
    expect((await api("GET", "/health")).body).toMatchObject({ status: "ok", database: { reachable: true } });
    await until(async () => (await api("GET", "/health")).body.lease.standing === true, 30_000, "the lease to stand again");
    expect(await api("GET", "/metrics").then((r) => String(r.body))).toMatch(/\npoker_database_reachable\{node="cut_node"\} 1\n/);
    const balance = await api("GET", "/api/me/balance", { token });
    expect(balance.status).toBe(200);
    expect(balance.body.balance).toBe(10_000);
    // The refused POST created nothing.
    expect((await api("GET", "/api/me/bots", { token })).body.map((b: { name: string }) => b.name)).not.toContain("made-during-the-cut");
    expect(node.child.exitCode).toBeNull();

    console.log(
      `[health-cut] /health 503 ${seconds(unhealthy.ms)} after the cut; the request in flight answered 503 after ${seconds(answered!.ms)}; ` +
        `new requests refused 503 in ≤ ${Math.round(slowestRefusalMs)} ms; lease not standing by then; /health 200 again ${seconds(recoveredMs)} after the path healed`,
    );
  });
});
