import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { TEST_ENV } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { spawnMain } from "../support/process";

setDefaultTimeout(60_000);

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase("listen_address");
});
afterAll(() => testDb.drop());

/** This machine's own address on its network (not loopback); the CI machine and ours have one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

const reachable = (url: string) => fetch(`${url}/health`).then((r) => r.ok, () => false);

test("HOST: by default only this machine can connect, and the start line says so; HOST=0.0.0.0 serves the network and says that", async () => {
  expect(lanAddress).toBeDefined();
  const local = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "listen_local" });
  try {
    expect(local.stdout()).toContain("(this machine only; HOST=0.0.0.0 serves others)");
    expect(await reachable(local.url)).toBe(true);
    expect(await reachable(local.url.replace("127.0.0.1", lanAddress!))).toBe(false);
  } finally {
    local.child.kill("SIGTERM");
    await local.child.exited;
  }
  const open = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, HOST_ID: "listen_open", HOST: "0.0.0.0" });
  try {
    expect(open.stdout()).toContain("(every interface: HOST=0.0.0.0)");
    expect(await reachable(open.url.replace("127.0.0.1", lanAddress!))).toBe(true);
  } finally {
    open.child.kill("SIGTERM");
    await open.child.exited;
  }
});
