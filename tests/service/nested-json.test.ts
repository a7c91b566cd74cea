import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { jsonNestingExceeds, MAX_JSON_DEPTH } from "../../src/lib/json-depth";
import { createHarness, TEST_ENV, type Harness } from "../support/app";
import { createTestDatabase, type TestDatabase } from "../support/db";
import { spawnMain, type ChildServer } from "../support/process";

setDefaultTimeout(60_000);

const NESTED_60KB = "[".repeat(30_000) + "]".repeat(30_000);
const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);

describe("the nesting scan", () => {
  test("counts arrays and objects, not brackets inside strings or after escaped quotes", () => {
    expect(jsonNestingExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestingExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(jsonNestingExceeds(`{"a":{"b":[{"c":1}]}}`, 3)).toBe(true);
    expect(jsonNestingExceeds(`{"a":{"b":[{"c":1}]}}`, 4)).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ s: "[[[[[{{{{{" }), 1)).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ s: 'quote \\" then [[[[' }), 1)).toBe(false);
    expect(jsonNestingExceeds(`{"s":"\\\\"}` + "[[[", 2)).toBe(true);
    // Siblings do not add up: depth is the deepest path, not the number of brackets.
    expect(jsonNestingExceeds(`[${Array(1000).fill("[[1]]").join(",")}]`, 3)).toBe(false);
  });
});

describe("deeply nested bodies in process (the test runner is not in production mode)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness("nested");
  });
  afterAll(() => h.close());

  test("nesting beyond the limit is a 400 naming the limit, before validation; at the limit the schema decides", async () => {
    const tooDeep = await h.call("POST", "/api/auth/login", { rawBody: nested(MAX_JSON_DEPTH + 1), headers: { "content-type": "application/json" } });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.code).toBe("VALIDATION_ERROR");
    expect(tooDeep.body.error.message).toContain("nests too deep");
    expect(tooDeep.body.error.details).toEqual({ field: "(body)", maxDepth: MAX_JSON_DEPTH });
    const atLimit = await h.call("POST", "/api/auth/login", { rawBody: nested(MAX_JSON_DEPTH), headers: { "content-type": "application/json" } });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.error.message).toBe("Invalid (body): Expected object");
  });

  test("the limit applies to authenticated routes too, before auth", async () => {
    const response = await h.call("POST", "/api/bots", { rawBody: `{"name":${nested(40, '"x"')}}`, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe("(body)");
  });

  test("refused before the rate limit: nested bodies spend none of an address's login attempts", async () => {
    const limited = await createHarness("nested_limited", { AUTH_RATE_LIMIT_PER_MINUTE: "2" });
    try {
      for (let i = 0; i < 5; i++) {
        const response = await limited.call("POST", "/api/auth/login", { rawBody: NESTED_60KB, headers: { "content-type": "application/json" } });
        expect(response.status).toBe(400);
      }
      const login = { email: "nobody@example.com", password: "a long password" };
      expect((await limited.call("POST", "/api/auth/login", { body: login })).status).toBe(401);
      expect((await limited.call("POST", "/api/auth/login", { body: login })).status).toBe(401);
      expect((await limited.call("POST", "/api/auth/login", { body: login })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  test("a value of the wrong type is never echoed in the error", async () => {
    for (const value of [["secret-marker"], { a: "secret-marker" }, 424242]) {
      const response = await h.call("POST", "/api/auth/login", { body: { email: value, password: "a long password" } });
      expect(response.status).toBe(400);
      expect(response.body.error.details.field).toBe("email");
      expect(JSON.stringify(response.body)).not.toMatch(/secret-marker|424242|object Object/);
    }
  });
});

describe("the 60 KB nested body against the real entry point", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase("nested_main");
  });
  afterAll(() => testDb.drop());

  for (const nodeEnv of ["development", "production"]) {
    test(`${nodeEnv} mode: 400 without echo, and /health answers meanwhile`, async () => {
      const server: ChildServer = await spawnMain({ ...TEST_ENV, DATABASE_URL: testDb.url, NODE_ENV: nodeEnv, JWT_SECRET: "nested-secret", DECK_SEAL_KEY: "ab".repeat(32) });
      try {
        const attack = fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: NESTED_60KB });
        const health = fetch(`${server.url}/health`);
        const [attacked, healthy] = await Promise.all([attack, health]);
        expect(healthy.status).toBe(200);
        expect(await healthy.json()).toMatchObject({ status: "ok", db: "postgres" });
        expect(attacked.status).toBe(400);
        const text = await attacked.text();
        expect(text).not.toContain("[[");
        expect(text.length).toBeLessThan(300);
        expect(JSON.parse(text).error.code).toBe("VALIDATION_ERROR");
        // The process is still serving, and logged no unexpected error.
        expect((await fetch(`${server.url}/health`)).status).toBe(200);
        expect(server.stderr()).not.toContain("unexpected error");
      } finally {
        server.child.kill("SIGTERM");
        await server.child.exited;
      }
    });
  }
});
