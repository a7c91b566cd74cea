/** CORS, X-Request-Id, 405 with Allow, OPTIONS, ETag/304 with Cache-Control, and compression, as browsers and SDKs expect them. */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { createHarness, type Harness } from "../support/app";

setDefaultTimeout(60_000);

let h: Harness;
let listed: Harness;
let limited: Harness;
beforeAll(async () => {
  h = await createHarness("http_conventions");
  listed = await createHarness("http_conventions_cors", { CORS_ORIGINS: "https://arena.example, https://other.example/" });
  limited = await createHarness("http_conventions_limits", { AUTH_RATE_LIMIT_PER_MINUTE: "3" });
});
afterAll(async () => {
  await h?.close();
  await listed?.close();
  await limited?.close();
});

const raw = (harness: Harness, method: string, path: string, headers: Record<string, string> = {}) =>
  harness.app.handle(new Request(`http://localhost${path}`, { method, headers }));

describe("CORS", () => {
  test("default: any origin reads public GETs (*), never a credentialed or a write request; preflights answer 204", async () => {
    const read = await raw(h, "GET", "/api/tables", { origin: "https://anywhere.example" });
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-expose-headers")).toContain("ETag");
    expect(read.headers.get("access-control-allow-credentials")).toBeNull();
    const { token } = await h.registerDeveloper();
    const personal = await raw(h, "GET", "/api/me/balance", { origin: "https://anywhere.example", authorization: `Bearer ${token}` });
    expect(personal.status).toBe(200);
    expect(personal.headers.get("access-control-allow-origin")).toBeNull();
    const preflightRead = await raw(h, "OPTIONS", "/api/tables", { origin: "https://anywhere.example", "access-control-request-method": "GET" });
    expect(preflightRead.status).toBe(204);
    expect(preflightRead.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflightRead.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, OPTIONS");
    expect(preflightRead.headers.get("access-control-allow-headers")).toContain("Idempotency-Key");
    const preflightWrite = await raw(h, "OPTIONS", "/api/tables", { origin: "https://anywhere.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" });
    expect(preflightWrite.status).toBe(204);
    expect(preflightWrite.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("CORS_ORIGINS: listed origins call every route (echoed, Vary: Origin); others get nothing", async () => {
    const preflight = await raw(listed, "OPTIONS", "/api/tables", { origin: "https://arena.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://arena.example");
    expect(preflight.headers.get("vary")).toContain("Origin");
    const { token } = await listed.registerDeveloper();
    const write = await raw(listed, "POST", "/api/me/balance/faucet", { origin: "https://other.example", authorization: `Bearer ${token}` });
    expect(write.status).toBe(200);
    expect(write.headers.get("access-control-allow-origin")).toBe("https://other.example");
    const stranger = await raw(listed, "GET", "/api/tables", { origin: "https://evil.example" });
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("methods and request ids", () => {
  test("a known path with a wrong method is 405 with Allow (§8 body); OPTIONS lists the methods; an unknown path stays 404", async () => {
    const wrong = await raw(h, "DELETE", "/api/stats");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(((await wrong.json()) as any).error.code).toBe("METHOD_NOT_ALLOWED");
    expect((await raw(h, "PUT", "/api/tables/tbl_x/join")).headers.get("allow")).toBe("POST, OPTIONS");
    const options = await raw(h, "OPTIONS", "/api/bots/bot_x");
    expect([options.status, options.headers.get("allow")]).toEqual([204, "GET, HEAD, DELETE, OPTIONS"]);
    expect((await raw(h, "GET", "/api/nowhere")).status).toBe(404);
  });

  test("X-Request-Id: a well-formed one is echoed, anything else replaced by a fresh id, on successes and errors", async () => {
    expect((await raw(h, "GET", "/health", { "x-request-id": "trace-42.a_b" })).headers.get("x-request-id")).toBe("trace-42.a_b");
    const generated = (await raw(h, "GET", "/api/nowhere", { "x-request-id": "bad id with spaces" })).headers.get("x-request-id");
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const two = [await raw(h, "GET", "/health"), await raw(h, "GET", "/health")].map((r) => r.headers.get("x-request-id"));
    expect(two[0]).not.toBe(two[1]);
  });
});

describe("rate limits", () => {
  test("register and login carry RateLimit-Policy and RateLimit (what is left); past the budget 429 with Retry-After; documented", async () => {
    const body = { email: "limits@example.com", password: "correct horse battery" };
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await limited.call("POST", i === 0 ? "/api/auth/register" : "/api/auth/login", { body }));
    expect(answers.map((a) => a.status)).toEqual([201, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get("ratelimit-policy"))).toEqual(Array(4).fill('"auth";q=3;w=60'));
    expect(answers.map((a) => /r=(\d+)/.exec(a.headers.get("ratelimit") ?? "")?.[1])).toEqual(["2", "1", "0", "0"]);
    expect(Number(answers[3].headers.get("retry-after"))).toBeGreaterThan(0);
    const doc = (await h.call("GET", "/swagger/json")).body;
    const login = doc.paths["/api/auth/login"].post.responses;
    expect(Object.keys(login["200"].headers)).toEqual(["RateLimit-Policy", "RateLimit"]);
    expect(login["429"].headers["Retry-After"].schema.type).toBe("integer");
  });
});

describe("caching and compression", () => {
  test("public reads: ETag, If-None-Match → 304, Cache-Control public no-cache; a change changes the ETag; personal reads are private", async () => {
    const first = await raw(h, "GET", "/api/tables");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/"\w+"$/);
    expect(first.headers.get("cache-control")).toBe("public, no-cache");
    const again = await raw(h, "GET", "/api/tables", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const { token } = await h.registerDeveloper();
    await h.call("POST", "/api/tables", { token, body: { maxPlayers: 2 } });
    const changed = await raw(h, "GET", "/api/tables", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    const personal = await raw(h, "GET", "/api/me", { authorization: `Bearer ${token}` });
    expect([personal.headers.get("cache-control"), personal.headers.get("etag")]).toEqual(["private, no-store", null]);
  });

  test("JSON over 1 KiB is compressed when asked (br, else gzip) and decodes to the same body; small ones are not", async () => {
    const plain = await (await raw(h, "GET", "/swagger/json")).text();
    expect(plain.length).toBeGreaterThan(1024);
    const br = await raw(h, "GET", "/swagger/json", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    const brBody = Buffer.from(await br.arrayBuffer());
    expect(brBody.length).toBeLessThan(plain.length / 3);
    expect(brotliDecompressSync(brBody).toString()).toBe(plain);
    const gz = await raw(h, "GET", "/swagger/json", { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(plain);
    expect((await raw(h, "GET", "/health", { "accept-encoding": "gzip" })).headers.get("content-encoding")).toBeNull();
  });
});
