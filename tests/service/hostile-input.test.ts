import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { SignJWT } from "jose";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("hostile");
let dev: { developerId: string; token: string };
let botId: string;

beforeAll(async () => {
  dev = await h.fundedDeveloper();
  botId = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "target" } })).body.botId;
});

async function snapshot() {
  const result: any = await h.database.db.execute(sql`select
    (select count(*) from developers)::int as developers,
    (select count(*) from bots)::int as bots,
    (select count(*) from transactions)::int as transactions,
    (select coalesce(sum(balance), 0) from developers)::text as balances,
    (select string_agg(api_key_hash, ',' order by id) from bots) as keys,
    (select string_agg(coalesce(last_faucet_at::text, '-'), ',' order by id) from developers) as claims`);
  return (Array.isArray(result) ? result : result.rows)[0];
}

function expectErrorShape(response: { status: number; body: any }, status: number, code?: string) {
  expect(response.status).toBe(status);
  expect(typeof response.body.error.code).toBe("string");
  expect(response.body.error.code).toMatch(/^[A-Z_]+$/);
  expect(typeof response.body.error.message).toBe("string");
  if (code) expect(response.body.error.code).toBe(code);
  const text = JSON.stringify(response.body);
  expect(text).not.toMatch(/at .*\.ts:\d+|select |insert |update |postgres|drizzle/i);
}

const HUGE = "x".repeat(10_000);

describe("hostile bodies: 400 VALIDATION_ERROR naming the field, no state change", () => {
  const cases: Array<[string, string, () => { body?: unknown; rawBody?: string; headers?: Record<string, string> }, string]> = [
    ["register missing password", "/api/auth/register", () => ({ body: { email: "m@x.io" } }), "password"],
    ["register short password", "/api/auth/register", () => ({ body: { email: "m@x.io", password: "short" } }), "password"],
    ["register long password", "/api/auth/register", () => ({ body: { email: "m@x.io", password: "p".repeat(129) } }), "password"],
    ["register bad email", "/api/auth/register", () => ({ body: { email: "not-an-email", password: "12345678" } }), "email"],
    ["register huge email", "/api/auth/register", () => ({ body: { email: `${HUGE}@x.io`, password: "12345678" } }), "email"],
    ["register extra field", "/api/auth/register", () => ({ body: { email: "e@x.io", password: "12345678", admin: true } }), "admin"],
    ["register wrong type", "/api/auth/register", () => ({ body: { email: 42, password: "12345678" } }), "email"],
    ["register array body", "/api/auth/register", () => ({ body: [1, 2] }), "(body)"],
    ["login missing email", "/api/auth/login", () => ({ body: { password: "12345678" } }), "email"],
    ["login object password", "/api/auth/login", () => ({ body: { email: "a@b.io", password: { $ne: null } } }), "password"],
  ];
  for (const [name, path, make, field] of cases) {
    test(name, async () => {
      const before = await snapshot();
      const response = await h.call("POST", path, make());
      expectErrorShape(response, 400, "VALIDATION_ERROR");
      expect(response.body.error.details.field).toBe(field);
      expect(await snapshot()).toEqual(before);
    });
  }

  const authedCases: Array<[string, string, unknown, string]> = [
    ["bot name empty", "/api/bots", { name: "" }, "name"],
    ["bot name too long", "/api/bots", { name: "n".repeat(65) }, "name"],
    ["bot description too long", "/api/bots", { name: "ok", description: "d".repeat(501) }, "description"],
    ["bot name number", "/api/bots", { name: 12 }, "name"],
    ["bot extra field", "/api/bots", { name: "ok", apiKey: "pbk_mine" }, "apiKey"],
    ["bot strategy object", "/api/bots", { name: "ok", strategy: { toString: "random" } }, "strategy"],
    ["bot name null", "/api/bots", { name: null }, "name"],
  ];
  for (const [name, path, body, field] of authedCases) {
    test(name, async () => {
      const before = await snapshot();
      const response = await h.call("POST", path, { body, token: dev.token });
      expectErrorShape(response, 400, "VALIDATION_ERROR");
      expect(response.body.error.details.field).toBe(field);
      expect(await snapshot()).toEqual(before);
    });
  }

  test("malformed JSON is 400", async () => {
    const before = await snapshot();
    for (const rawBody of ['{"email":', "{'a':1}", "nul", '{"a":1}}']) {
      const response = await h.call("POST", "/api/auth/register", { rawBody, headers: { "content-type": "application/json" } });
      expectErrorShape(response, 400, "VALIDATION_ERROR");
    }
    expect(await snapshot()).toEqual(before);
  });

  test("a non-JSON content type is 415, not a crash, and changes nothing", async () => {
    const before = await snapshot();
    const response = await h.call("POST", "/api/bots", {
      rawBody: "name=x",
      token: dev.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectErrorShape(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    const text = await h.call("POST", "/api/auth/register", {
      rawBody: JSON.stringify({ email: "t@x.io", password: "12345678" }),
      headers: { "content-type": "text/plain" },
    });
    expectErrorShape(text, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(await snapshot()).toEqual(before);
  });

  test("a body over the size limit is 413 PAYLOAD_TOO_LARGE", async () => {
    const before = await snapshot();
    const response = await h.call("POST", "/api/bots", {
      rawBody: JSON.stringify({ name: "x", description: "d".repeat(200_000) }),
      token: dev.token,
      headers: { "content-type": "application/json" },
    });
    expectErrorShape(response, 413, "PAYLOAD_TOO_LARGE");
    expect(await snapshot()).toEqual(before);
  });

  test("regression (chunked body): a body without a length is read no further than MAX_BODY_BYTES before the 413", async () => {
    const before = await snapshot();
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    // An endless body: a server that buffered it all would never answer.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const response = await h.app.handle(
      new Request("http://localhost/api/bots", { method: "POST", body, headers: { "content-type": "application/json", authorization: `Bearer ${dev.token}` } }),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(sent).toBeLessThanOrEqual(h.config.maxBodyBytes + 4 * chunk.byteLength);
    expect(await snapshot()).toEqual(before);
  });

  test("query strings: huge, negative, non-integer and unknown parameters are 400", async () => {
    for (const query of ["limit=0", "limit=-1", "limit=1.5", "limit=1e400", "limit=NaN", "limit=99999999999999999999", "foo=1", "before="]) {
      const response = await h.call("GET", `/api/me/transactions?${query}`, { token: dev.token });
      expectErrorShape(response, 400, "VALIDATION_ERROR");
    }
    const bots = await h.call("GET", "/api/bots?limit=abc");
    expectErrorShape(bots, 400, "VALIDATION_ERROR");
    expect(bots.body.error.details.field).toBe("limit");
  });

  test("an unknown route is 404 JSON, a known route's wrong method 405 JSON (issue 14); malformed ids are 400", async () => {
    expectErrorShape(await h.call("GET", "/api/nothing-here"), 404, "NOT_FOUND");
    const wrongMethod = await h.call("DELETE", "/api/bots");
    expectErrorShape(wrongMethod, 405, "METHOD_NOT_ALLOWED");
    expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    // An id that cannot be an id (traversal, quotes, NUL) is refused before any lookup.
    const traversal = await h.call("GET", `/api/bots/${encodeURIComponent("../../etc/passwd")}`);
    expectErrorShape(traversal, 400, "VALIDATION_ERROR");
    expect(traversal.body.error.details.field).toBe("botId");
  });
});

describe("tokens: every bad credential is 401 and changes nothing", () => {
  const key = new TextEncoder().encode("test-secret");
  const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

  async function badTokens(): Promise<Record<string, string | undefined>> {
    const now = Math.floor(h.clock.now() / 1000);
    const [header, payload, signature] = dev.token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    return {
      none: undefined,
      garbage: "not.a.jwt",
      algNone: `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: dev.developerId, exp: now + 3600 })}.`,
      wrongKey: await new SignJWT({ sub: dev.developerId }).setProtectedHeader({ alg: "HS256" }).setExpirationTime(now + 3600).sign(new TextEncoder().encode("another-secret")),
      tampered: `${header}.${base64url({ ...claims, sub: "dev_someone_else" })}.${signature}`,
      expired: await new SignJWT({ sub: dev.developerId }).setProtectedHeader({ alg: "HS256" }).setExpirationTime(now - 10).sign(key),
      noExp: await new SignJWT({ sub: dev.developerId }).setProtectedHeader({ alg: "HS256" }).sign(key),
      hs512: await new SignJWT({ sub: dev.developerId }).setProtectedHeader({ alg: "HS512" }).setExpirationTime(now + 3600).sign(key),
    };
  }

  const routes: Array<[string, string, unknown?]> = [
    ["GET", "/api/me"],
    ["GET", "/api/me/balance"],
    ["POST", "/api/me/balance/faucet"],
    ["GET", "/api/me/transactions"],
    ["POST", "/api/bots", { name: "sneaky" }],
  ];

  test("no token, garbage, alg none, wrong key, tampered payload, expired, no exp, other alg", async () => {
    const tokens = await badTokens();
    const before = await snapshot();
    for (const [kind, token] of Object.entries(tokens)) {
      for (const [method, path, body] of routes) {
        const response = await h.call(method, path, { token, body });
        expect({ kind, path, status: response.status }).toEqual({ kind, path, status: 401 });
        expectErrorShape(response, 401, "UNAUTHORIZED");
      }
      const rotate = await h.call("POST", `/api/bots/${botId}/rotate-key`, { token });
      expectErrorShape(rotate, 401, "UNAUTHORIZED");
    }
    for (const header of ["Basic abc", "Bearer", "bearer  ", `Token ${dev.token}`]) {
      const response = await h.call("GET", "/api/me", { headers: { authorization: header } });
      expectErrorShape(response, 401, "UNAUTHORIZED");
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("unexpected failures", () => {
  test("a 500 says INTERNAL and nothing else", async () => {
    const { Elysia } = await import("elysia");
    const { errorHandler } = await import("../../src/plugins/error-handler");
    const app = new Elysia().use(errorHandler(() => {})).get("/boom", () => {
      throw new Error("select * from secrets where password = 'x' at db.ts:12");
    });
    const response = await app.handle(new Request("http://localhost/boom"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "INTERNAL", message: "Something went wrong on our side" } });
  });
});
