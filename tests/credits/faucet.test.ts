import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHarness, type Harness } from "../support/app";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

const DAY = 24 * 60 * 60 * 1000;
let h: Harness;

beforeAll(async () => {
  h = await createHarness("faucet");
});
afterAll(() => h.close());

describe("faucet state table (brief: States and transitions)", () => {
  test("a brand-new developer is claimable: canClaimFaucet true, nextFaucetClaim null, balance 0", async () => {
    const dev = await h.registerDeveloper();
    const balance = await h.call("GET", "/api/me/balance", { token: dev.token });
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual({ balance: 0, canClaimFaucet: true, nextFaucetClaim: null });
  });

  test("a claim grants exactly 10,000, writes one faucet row, nextClaimAt = claim time + 24 h", async () => {
    const dev = await h.registerDeveloper();
    const claimedAt = h.clock.now();
    const claim = await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    expect(claim.status).toBe(200);
    expect(claim.body).toEqual({
      success: true,
      amount: 10_000,
      newBalance: 10_000,
      nextClaimAt: new Date(claimedAt + DAY).toISOString(),
    });
    const txs = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(txs.body).toHaveLength(1);
    expect(txs.body[0]).toMatchObject({
      type: "faucet",
      amount: 10_000,
      balanceAfter: 10_000,
      botId: null,
      tableId: null,
      matchId: null,
      createdAt: new Date(claimedAt).toISOString(),
    });
    expect(txs.body[0].transactionId).toStartWith("tx_");
    await h.expectAuditClean();
  });

  test("after a claim the balance shows the cooldown; a second claim is 429 with Retry-After and a claim-result body", async () => {
    const dev = await h.registerDeveloper();
    const claimedAt = h.clock.now();
    await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    h.clock.advance(60_000);
    const balance = await h.call("GET", "/api/me/balance", { token: dev.token });
    expect(balance.body).toEqual({
      balance: 10_000,
      canClaimFaucet: false,
      nextFaucetClaim: new Date(claimedAt + DAY).toISOString(),
    });
    const again = await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe(String((DAY - 60_000) / 1000));
    expect(again.body).toMatchObject({
      success: false,
      amount: 0,
      newBalance: 10_000,
      nextClaimAt: new Date(claimedAt + DAY).toISOString(),
      error: { code: "FAUCET_COOLDOWN" },
    });
    const txs = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(txs.body).toHaveLength(1);
  });

  test("moving the clock 24 h makes the faucet claimable again, and not a millisecond earlier", async () => {
    const dev = await h.registerDeveloper();
    await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    h.clock.advance(DAY - 1);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.canClaimFaucet).toBe(false);
    expect((await h.call("POST", "/api/me/balance/faucet", { token: dev.token })).status).toBe(429);
    h.clock.advance(1);
    const balance = await h.call("GET", "/api/me/balance", { token: dev.token });
    expect(balance.body).toEqual({ balance: 10_000, canClaimFaucet: true, nextFaucetClaim: null });
    const second = await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    expect(second.status).toBe(200);
    expect(second.body.newBalance).toBe(20_000);
    const txs = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(txs.body.map((t: any) => t.balanceAfter)).toEqual([20_000, 10_000]);
    await h.expectAuditClean();
  });

  test("50 concurrent claims by one developer over HTTP grant exactly once", async () => {
    const dev = await h.registerDeveloper();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => h.call("POST", "/api/me/balance/faucet", { token: dev.token })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(49);
    const balance = await h.call("GET", "/api/me/balance", { token: dev.token });
    expect(balance.body.balance).toBe(10_000);
    const txs = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(txs.body).toHaveLength(1);
    await h.expectAuditClean();
  });

  test("the account actor retires when idle and is rebuilt from rows with the cooldown intact", async () => {
    const dev = await h.registerDeveloper();
    await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    const live = h.app.services.accounts.liveActors;
    expect(live).toBeGreaterThan(0);
    h.clock.advance(h.config.accountIdleMs + 1);
    expect(h.app.services.accounts.liveActors).toBe(0);
    const again = await h.call("POST", "/api/me/balance/faucet", { token: dev.token });
    expect(again.status).toBe(429);
    expect(again.body.newBalance).toBe(10_000);
  });
});

describe("transactions listing", () => {
  test("newest first, limit and before cursor page through the history", async () => {
    const dev = await h.registerDeveloper();
    for (let i = 0; i < 5; i++) {
      expect((await h.call("POST", "/api/me/balance/faucet", { token: dev.token })).status).toBe(200);
      h.clock.advance(DAY);
    }
    const all = await h.call("GET", "/api/me/transactions", { token: dev.token });
    expect(all.body.map((t: any) => t.balanceAfter)).toEqual([50_000, 40_000, 30_000, 20_000, 10_000]);
    const first = await h.call("GET", "/api/me/transactions?limit=2", { token: dev.token });
    expect(first.body.map((t: any) => t.balanceAfter)).toEqual([50_000, 40_000]);
    const next = await h.call("GET", `/api/me/transactions?limit=2&before=${first.body[1].transactionId}`, { token: dev.token });
    expect(next.body.map((t: any) => t.balanceAfter)).toEqual([30_000, 20_000]);
    const bad = await h.call("GET", "/api/me/transactions?limit=501", { token: dev.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("VALIDATION_ERROR");
    expect(bad.body.error.details.field).toBe("limit");
    const unknownCursor = await h.call("GET", "/api/me/transactions?before=tx_nope", { token: dev.token });
    expect(unknownCursor.status).toBe(400);
    const other = await h.registerDeveloper();
    const foreignCursor = await h.call("GET", `/api/me/transactions?before=${first.body[0].transactionId}`, { token: other.token });
    expect(foreignCursor.status).toBe(400);
  });
});
