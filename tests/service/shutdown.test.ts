/** Ctrl-C on `bun run start` (SIGINT to the whole process group, wrapper included): exit 0, one line per table saying what became of it, no stack trace. */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { callApi } from "../support/http";
import { until } from "../support/nodes";
import { spawnMain } from "../support/process";

setDefaultTimeout(60_000);

let database: TestDatabase | undefined;
afterAll(async () => database?.drop());

test("a running match is paused (resumable), a waiting table kept, and the log says so", async () => {
  database = await createTestDatabase("shutdown");
  // setsid: the server and its `bun run` wrapper in a process group of their own, as a terminal's Ctrl-C sees them.
  const server = await spawnMain({ ...TEST_ENV, DATABASE_URL: database.url, NATS_URL: "" }, 30_000, ["setsid", "bun", "run", "start"]);
  const api = (method: string, path: string, token?: string, body?: unknown) => callApi(server.url, method, path, { token, body });
  const { token } = (await api("POST", "/api/auth/register", undefined, { email: "shutdown@example.com", password: "a long password" })).body;
  await api("POST", "/api/me/balance/faucet", token);
  // Remote bots that never connect: every action waits out its timeout, so the match is still running at Ctrl-C.
  const remote = [];
  for (const name of ["away-1", "away-2"]) remote.push((await api("POST", "/api/bots", token, { name })).body.botId);
  const house = (await api("POST", "/api/bots", token, { name: "house", strategy: "caller" })).body.botId;
  const running = (await api("POST", "/api/tables", token, { maxPlayers: 2, actionTimeoutMs: 200 })).body.tableId;
  const waiting = (await api("POST", "/api/tables", token, { maxPlayers: 3 })).body.tableId;
  for (const botId of remote) expect((await api("POST", `/api/tables/${running}/join`, token, { botId })).status).toBe(201);
  expect((await api("POST", `/api/tables/${waiting}/join`, token, { botId: house })).status).toBe(201);
  // Ctrl-C once the match has begun: it has its id (the shutdown line names it).
  const match = await until(async () => {
    const view = (await api("GET", `/api/tables/${running}`)).body;
    return view.status === "running" && view.matchId !== null && (view.matchId as string);
  }, 20_000, "the match to begin");

  process.kill(-server.child.pid, "SIGINT");
  expect(await server.child.exited).toBe(0);
  await server.outputEnded;
  const out = server.stdout();
  expect(out).toContain("SIGINT: shutting down");
  expect(out).toMatch(new RegExp(`table ${running}: match ${match} (paused after \\d+ hands|stopped during a hand after \\d+ complete hands).*resumes`));
  expect(out).toContain(`table ${waiting}: waiting, 1/3 seats taken; kept as it is`);
  expect(out).toContain("stopped cleanly (2 tables); the database is closed");
  expect(server.stderr()).not.toMatch(/\n\s+at |Error:|error:/);
});
