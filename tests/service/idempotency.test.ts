import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createApp, type App } from "../../src/app";
import { IDEMPOTENCY_WINDOW_MS } from "../../src/plugins/idempotency";
import { createHarness, harnessFor, type Harness } from "../support/app";

setDefaultTimeout(60_000);

let h: Harness & { testDb: { url: string } };
/** A second process on the same database (another node, or this one after a restart). */
let other: App;
let otherCall: Harness["call"];
beforeAll(async () => {
  h = await createHarness("idempotency");
  other = createApp({ db: h.database.db, dbKind: h.database.kind, config: h.config, jwtSecret: "test-secret", clock: h.clock, log: () => {} });
  otherCall = harnessFor(other, h.database, h.clock, h.config).call;
});
afterAll(async () => {
  await h.expectAuditClean();
  await other.services.host.shutdown();
  await other.services.ratingsApplier.stop();
  await other.services.accounts.stopAll();
  await h.close();
});

let keyCounter = 0;
const newKey = () => `key-${++keyCounter}-${crypto.randomUUID()}`;
const keyed = (key: string, token: string, body?: unknown) => ({ token, body, headers: { "idempotency-key": key } });

describe("Idempotency-Key on every POST that creates or moves money (Stripe's semantics)", () => {
  test("the same key and body: the first answer again, marked replayed, and one table — from this process or another", async () => {
    const dev = await h.fundedDeveloper();
    const key = newKey();
    const first = await h.call("POST", "/api/tables", keyed(key, dev.token, { maxPlayers: 2, buyIn: 500 }));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await h.call("POST", "/api/tables", keyed(key, dev.token, { buyIn: 500, maxPlayers: 2 }));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const elsewhere = await otherCall("POST", "/api/tables", keyed(key, dev.token, { maxPlayers: 2, buyIn: 500 }));
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.tableId).toBe(first.body.tableId);
    const lobby = (await h.call("GET", "/api/tables?limit=500")).body.filter((t: any) => t.tableId === first.body.tableId);
    expect(lobby).toHaveLength(1);
  });

  test("a retried join charges one buy-in; a retried faucet claim grants once and answers 200 again, not 429", async () => {
    const dev = await h.fundedDeveloper();
    const botId = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "retried" } })).body.botId;
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 800 } })).body;
    const key = newKey();
    const answers = await Promise.all([1, 2, 3].map(() => h.call("POST", `/api/tables/${table.tableId}/join`, keyed(key, dev.token, { botId }))));
    const statuses = answers.map((a) => a.status).sort();
    // One ran; the others got its answer or were told it is still running (how many of each is the
    // scheduler's: the next test holds a first request open to see the 409 for certain): never a second seat.
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    const others = answers.filter((a) => a.status !== 201);
    expect(others.map((a) => [a.status, a.body.error.code])).toEqual(others.map(() => [409, "IDEMPOTENCY_KEY_IN_USE"]));
    const replay = await h.call("POST", `/api/tables/${table.tableId}/join`, keyed(key, dev.token, { botId }));
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(answers.find((a) => a.status === 201)!.body);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000 - 800);
    const buyIns = (await h.call("GET", "/api/me/transactions", { token: dev.token })).body.filter((t: any) => t.type === "buy_in");
    expect(buyIns).toHaveLength(1);

    const fresh = await h.registerDeveloper();
    const claimKey = newKey();
    const claimed = await h.call("POST", "/api/me/balance/faucet", keyed(claimKey, fresh.token));
    expect(claimed.status).toBe(200);
    const reclaimed = await otherCall("POST", "/api/me/balance/faucet", keyed(claimKey, fresh.token));
    expect(reclaimed.status).toBe(200);
    expect(reclaimed.body).toEqual(claimed.body);
    expect((await h.call("GET", "/api/me/balance", { token: fresh.token })).body.balance).toBe(10_000);
    expect((await h.call("POST", "/api/me/balance/faucet", { token: fresh.token })).status).toBe(429);
  });

  test("a retry while the first request with its key is still being answered: 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, and nothing done twice", async () => {
    const dev = await h.fundedDeveloper();
    const botId = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "in-flight" } })).body.botId;
    const table = (await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, buyIn: 700 } })).body;
    const path = `/api/tables/${table.tableId}/join`;
    const key = newKey();
    // The first request with the key: its key claimed, its join held until the retry has been answered.
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const exchange = { developerId: dev.developerId, request: new Request(`http://localhost${path}`, { method: "POST" }), body: { botId }, headers: { "idempotency-key": key }, set: { status: 201 } };
    const first = h.app.services.idempotency.once(exchange, async () => {
      started();
      await held;
      const joined = await h.call("POST", path, { token: dev.token, body: { botId } });
      expect(joined.status).toBe(201);
      return joined.body;
    });
    await running;
    const retried = await h.call("POST", path, keyed(key, dev.token, { botId }));
    expect(retried.status).toBe(409);
    expect(retried.body.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    expect(retried.headers.get("retry-after")).toBe("1");
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000);
    release();
    const seated = await first;
    // Once answered, the retry gets the first answer: one seat, one buy-in.
    const replay = await h.call("POST", path, keyed(key, dev.token, { botId }));
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(replay.body).toEqual(seated);
    expect((await h.call("GET", "/api/me/balance", { token: dev.token })).body.balance).toBe(10_000 - 700);
  });

  test("the same key with another body or another route is 422 IDEMPOTENCY_KEY_REUSED and changes nothing", async () => {
    const dev = await h.fundedDeveloper();
    const key = newKey();
    expect((await h.call("POST", "/api/bots", keyed(key, dev.token, { name: "first" }))).status).toBe(201);
    for (const [path, body] of [["/api/bots", { name: "second" }], ["/api/tables", { maxPlayers: 2 }]] as const) {
      const reused = await h.call("POST", path, keyed(key, dev.token, body));
      expect(reused.status).toBe(422);
      expect(reused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    }
    expect((await h.call("GET", "/api/me/bots", { token: dev.token })).body.map((b: any) => b.name)).toEqual(["first"]);
  });

  test("keys are per developer; an error answer is kept and replayed too; after 24 h a key is new again", async () => {
    const [a, b] = [await h.fundedDeveloper(), await h.fundedDeveloper()];
    const key = newKey();
    const byA = await h.call("POST", "/api/bots", keyed(key, a.token, { name: "mine" }));
    const byB = await h.call("POST", "/api/bots", keyed(key, b.token, { name: "mine" }));
    expect([byA.status, byB.status]).toEqual([201, 201]);
    expect(byB.body.botId).not.toBe(byA.body.botId);

    const missing = newKey();
    const notFound = await h.call("POST", "/api/tables/tbl_missing/join", keyed(missing, a.token, { botId: byA.body.botId }));
    expect(notFound.status).toBe(404);
    const replayed = await h.call("POST", "/api/tables/tbl_missing/join", keyed(missing, a.token, { botId: byA.body.botId }));
    expect(replayed.status).toBe(404);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(notFound.body);

    const dayKey = newKey();
    const today = await h.call("POST", "/api/tables", keyed(dayKey, a.token, { maxPlayers: 2 }));
    h.clock.advance(IDEMPOTENCY_WINDOW_MS + 1);
    const tomorrow = await h.call("POST", "/api/tables", keyed(dayKey, a.token, { maxPlayers: 2 }));
    expect(tomorrow.status).toBe(201);
    expect(tomorrow.headers.get("idempotent-replayed")).toBeNull();
    expect(tomorrow.body.tableId).not.toBe(today.body.tableId);
    expect(await h.app.services.idempotency.sweep()).toBeGreaterThan(0);
    for (const tableId of [today.body.tableId, tomorrow.body.tableId]) expect((await h.call("DELETE", `/api/tables/${tableId}`, { token: a.token })).status).toBe(200);
  });

  test("no api key rests in the replay store: a replayed create or rotate-key answers apiKey null, and a dump of the whole database holds no key", async () => {
    const dev = await h.fundedDeveloper();
    const [createKey, rotateKey] = [newKey(), newKey()];
    const created = await h.call("POST", "/api/bots", keyed(createKey, dev.token, { name: "secretive" }));
    expect([created.status, created.body.apiKey]).toEqual([201, expect.stringMatching(/^pbk_/)]);
    const rotated = await h.call("POST", `/api/bots/${created.body.botId}/rotate-key`, keyed(rotateKey, dev.token));
    expect([rotated.status, rotated.body.apiKey]).toEqual([200, expect.stringMatching(/^pbk_/)]);
    const handedOut = [created.body.apiKey as string, rotated.body.apiKey as string];

    const replays = [
      [await otherCall("POST", "/api/bots", keyed(createKey, dev.token, { name: "secretive" })), created],
      [await h.call("POST", `/api/bots/${created.body.botId}/rotate-key`, keyed(rotateKey, dev.token)), rotated],
    ] as const;
    for (const [replay, first] of replays) {
      expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([first.status, "true"]);
      expect(replay.body).toEqual({ ...first.body, apiKey: null });
    }
    expect(replays).toHaveLength(2);
    // The rotated key is the one that works: the replay handed out nothing.
    expect((await h.app.services.bots.findByApiKey(handedOut[1]))?.botId).toBe(created.body.botId);
    expect(await h.app.services.bots.findByApiKey(handedOut[0])).toBeUndefined();

    const dump = Bun.spawnSync(["pg_dump", "--data-only", "--no-owner", h.testDb.url]);
    expect(dump.exitCode).toBe(0);
    const text = dump.stdout.toString();
    expect(text).toContain(created.body.botId); // the dump is of the right database
    expect(text).toContain(createKey); // and holds the replay store
    for (const apiKey of handedOut) expect(text.includes(apiKey)).toBe(false);
    expect(text.includes("pbk_")).toBe(false);
  });

  test("a malformed key is a 400 naming the header, and nothing is created", async () => {
    const dev = await h.fundedDeveloper();
    for (const bad of ["x".repeat(256), "has space", "ünïcode"]) {
      const refused = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "never" }, headers: { "idempotency-key": bad } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("VALIDATION_ERROR");
      expect(refused.body.error.details.field).toBe("idempotency-key");
    }
    expect((await h.call("GET", "/api/me/bots", { token: dev.token })).body).toEqual([]);
  });

  test("the OpenAPI document offers the header on every write that creates or moves money", async () => {
    const doc = (await h.call("GET", "/swagger/json")).body;
    const writes = [
      ["post", "/api/bots"],
      ["post", "/api/bots/{botId}/rotate-key"],
      ["delete", "/api/bots/{botId}"],
      ["post", "/api/me/balance/faucet"],
      ["post", "/api/tables"],
      ["delete", "/api/tables/{tableId}"],
      ["post", "/api/tables/{tableId}/join"],
      ["post", "/api/tables/{tableId}/leave"],
    ];
    for (const [method, path] of writes) {
      const operation = doc.paths[path][method];
      expect({ path, header: operation.parameters?.some((p: any) => p.in === "header" && p.name === "idempotency-key") }).toEqual({ path, header: true });
      expect(operation.responses["422"]).toBeDefined();
    }
  });
});
