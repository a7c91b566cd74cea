import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const h = useHarness("identity");

describe("register, login, me", () => {
  test("register returns the developer and a working token; ids are prefixed", async () => {
    const r = await h.call("POST", "/api/auth/register", { body: { email: "Ada@Example.com", password: "12345678", name: "Ada" } });
    expect(r.status).toBe(201);
    expect(r.body.developer).toEqual({
      developerId: expect.stringMatching(/^dev_[0-9a-z]{20}$/),
      email: "ada@example.com",
      name: "Ada",
      createdAt: new Date(h.clock.now()).toISOString(),
    });
    const me = await h.call("GET", "/api/me", { token: r.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(r.body.developer);
  });

  test("duplicate email (any case) is 409 EMAIL_TAKEN", async () => {
    await h.call("POST", "/api/auth/register", { body: { email: "dup@example.com", password: "12345678" } });
    const again = await h.call("POST", "/api/auth/register", { body: { email: "DUP@example.com", password: "abcdefgh" } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("EMAIL_TAKEN");
  });

  test("login: right pair gives a token with expiresAt 7 days on; wrong password and unknown email get the same 401", async () => {
    await h.call("POST", "/api/auth/register", { body: { email: "log@example.com", password: "s3cretpass" } });
    const ok = await h.call("POST", "/api/auth/login", { body: { email: "log@example.com", password: "s3cretpass" } });
    expect(ok.status).toBe(200);
    expect(ok.body.expiresAt).toBe(new Date(Math.floor(h.clock.now() / 1000) * 1000 + 7 * 86400_000).toISOString());
    expect((await h.call("GET", "/api/me", { token: ok.body.token })).status).toBe(200);
    const wrong = await h.call("POST", "/api/auth/login", { body: { email: "log@example.com", password: "wrongpass" } });
    const unknown = await h.call("POST", "/api/auth/login", { body: { email: "nobody@example.com", password: "s3cretpass" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  test("a token stops working when it expires (injected clock)", async () => {
    const dev = await h.registerDeveloper();
    h.clock.advance(7 * 86400_000 - 5_000);
    expect((await h.call("GET", "/api/me", { token: dev.token })).status).toBe(200);
    h.clock.advance(10_000);
    const expired = await h.call("GET", "/api/me", { token: dev.token });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("UNAUTHORIZED");
  });

  test("the generated JWT secret is stored once and reused (tokens survive restarts)", async () => {
    const { ensureJwtSecret } = await import("../../src/db/settings");
    const first = await ensureJwtSecret(h.database.db, undefined);
    const second = await ensureJwtSecret(h.database.db, undefined);
    expect(first).toBe(second);
    expect(first.length).toBeGreaterThanOrEqual(48);
    expect(await ensureJwtSecret(h.database.db, "configured")).toBe("configured");
  });
});
