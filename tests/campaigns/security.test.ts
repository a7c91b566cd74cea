/**
 * Security review as tests (extends tests/service/hostile-input.test.ts, which covers alg none,
 * wrong key, tampered payload, expired, no exp signed with another key, other alg).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { SignJWT } from "jose";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { WsBot } from "../support/ws-bot";
import { callApi, errorShapeProblem, rowsOf } from "./support";

let server: TestServer;
let alice: { token: string; developerId: string };
let bob: { token: string; developerId: string };
let secret: Uint8Array;

beforeAll(async () => {
  server = await startTestServer("security", { JWT_SECRET: "security-campaign-secret" });
  alice = await registerWithCredits(server, "alice");
  bob = await registerWithCredits(server, "bob");
  secret = new TextEncoder().encode("security-campaign-secret");
});
afterAll(() => server.close());

const sign = (claims: Record<string, unknown>, exp: number | null) => {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: "HS256" });
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(secret);
};
const now = () => Math.floor(Date.now() / 1000);

describe("tokens", () => {
  test("the right key is really the right key: a token we sign is accepted (so the refusals below mean something)", async () => {
    const token = await sign({ sub: alice.developerId }, now() + 600);
    expect((await server.api("GET", "/api/me", { token })).body.developerId).toBe(alice.developerId);
  });

  test("right key but no exp: 401", async () => {
    const token = await sign({ sub: alice.developerId }, null);
    const r = await server.api("GET", "/api/me", { token });
    expect(r.status).toBe(401);
    expect(errorShapeProblem(r.body)).toBeNull();
  });

  test("right key, unknown or deleted developer id: never a 2xx on a write, no 5xx", async () => {
    for (const sub of ["dev_00000000000000000000000000", "dev_deleted", "", "' or 1=1 --"]) {
      const token = await sign({ sub }, now() + 600);
      for (const [method, path, body] of [
        ["GET", "/api/me"],
        ["GET", "/api/me/balance"],
        ["POST", "/api/me/balance/faucet"],
      ] as Array<[string, string, unknown?]>) {
        const r = await server.api(method, path, { token, body });
        expect({ sub, path, ok: r.status >= 400 && r.status < 500 }).toEqual({ sub, path, ok: true });
        expect(errorShapeProblem(r.body)).toBeNull();
      }
    }
    const [row] = await rowsOf<{ n: number }>(server.database.db, sql`select count(*)::int as n from bots where developer_id not in (select id from developers)`);
    expect(row.n).toBe(0);
  });

  test("regression (unknown developer): a well-signed token for a developer that does not exist gets 401, not 500, on writes", async () => {
    const token = await sign({ sub: "dev_00000000000000000000000000" }, now() + 600);
    const statuses = [
      (await server.api("POST", "/api/bots", { token, body: { name: "ghost" } })).status,
      (await server.api("POST", "/api/tables", { token, body: {} })).status,
    ];
    expect(statuses).toEqual([401, 401]);
  });

  test("a valid token on another developer's resources: 403, nothing changes", async () => {
    const bot = await createBot(server, alice.token, "alices");
    const rotate = await server.api("POST", `/api/bots/${bot.botId}/rotate-key`, { token: bob.token });
    expect(rotate.status).toBe(403);
    expect(rotate.body.error.code).toBe("FORBIDDEN");
    const table = (await server.api("POST", "/api/tables", { token: bob.token, body: { maxPlayers: 3 } })).body.tableId;
    const join = await server.api("POST", `/api/tables/${table}/join`, { token: bob.token, body: { botId: bot.botId } });
    expect(join.status).toBe(403);
    expect((await server.api("POST", `/api/tables/${table}/join`, { token: alice.token, body: { botId: bot.botId } })).status).toBe(201);
    const leave = await server.api("POST", `/api/tables/${table}/leave`, { token: bob.token, body: { botId: bot.botId } });
    expect(leave.status).toBe(403);
    expect((await server.api("GET", "/api/me/balance", { token: alice.token })).body.balance).toBe(9_000);
    // The old key still works: the forbidden rotation did nothing.
    const ws = await new WsBot(server.url, bot.apiKey).connect();
    ws.disconnect();
  });
});

describe("bot api keys", () => {
  test("the database never holds a raw key, only its hash; every text column is scanned", async () => {
    const bot = await createBot(server, alice.token, "scanned");
    const rotated = (await server.api("POST", `/api/bots/${bot.botId}/rotate-key`, { token: alice.token })).body.apiKey as string;
    const columns = await rowsOf<{ table_name: string; column_name: string }>(
      server.database.db,
      sql`select table_name, column_name from information_schema.columns
          where table_schema = 'public' and data_type in ('text', 'character varying', 'jsonb', 'json')`,
    );
    expect(columns.length).toBeGreaterThan(10);
    for (const key of [bot.apiKey, rotated]) {
      const secretPart = key.slice(4);
      for (const { table_name, column_name } of columns) {
        const [hit] = await rowsOf<{ n: number }>(
          server.database.db,
          sql`select count(*)::int as n from ${sql.identifier(table_name)} where ${sql.identifier(column_name)}::text like ${"%" + secretPart + "%"}`,
        );
        expect({ table_name, column_name, n: hit.n }).toEqual({ table_name, column_name, n: 0 });
      }
    }
    const [stored] = await rowsOf<{ api_key_hash: string }>(server.database.db, sql`select api_key_hash from bots where id = ${bot.botId}`);
    expect(stored.api_key_hash).toBe(new Bun.CryptoHasher("sha256").update(rotated).digest("hex"));
  });

  test("a rotated key stops working on the WebSocket at once", async () => {
    const bot = await createBot(server, alice.token, "rotating");
    const ws = await new WsBot(server.url, bot.apiKey).connect();
    ws.disconnect();
    const rotated = (await server.api("POST", `/api/bots/${bot.botId}/rotate-key`, { token: alice.token })).body.apiKey as string;
    const refused = await fetch(`${server.url}/api/bots/connect`, { headers: { authorization: `Bearer ${bot.apiKey}`, upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" } });
    expect(refused.status).toBe(401);
    expect(errorShapeProblem(await refused.json())).toBeNull();
    const viaQuery = await fetch(`${server.url}/api/bots/connect?apiKey=${encodeURIComponent(bot.apiKey)}`, { headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" } });
    expect(viaQuery.status).toBe(401);
    const fresh = await new WsBot(server.url, rotated).connect();
    expect(fresh.ofType("welcome")[0].botId).toBe(bot.botId);
    fresh.disconnect();
  });
});

describe("hole cards and internals", () => {
  test("no bot sees another's hole cards before showdown; a running match's record and hands are 404", async () => {
    const a = await createBot(server, bob.token, "peek-a");
    const b = await createBot(server, bob.token, "peek-b");
    // A folds to a bet in even hands, so some hands end without a showdown (their hole cards must never be shown).
    const wsA = await new WsBot(server.url, a.apiKey, (request) => {
      if (request.handNumber % 2 === 0 && request.toCall > 0) return { action: "fold" };
      return { action: request.legalActions.includes("check") ? "check" : "call" };
    }).connect();
    const wsB = await new WsBot(server.url, b.apiKey).connect();
    const table = (await server.api("POST", "/api/tables", { token: bob.token, body: { maxPlayers: 2, maxHands: 30 } })).body.tableId;
    await server.api("POST", `/api/tables/${table}/join`, { token: bob.token, body: { botId: a.botId } });
    await server.api("POST", `/api/tables/${table}/join`, { token: bob.token, body: { botId: b.botId } });
    const started = await wsA.next((m) => m.type === "match_started");
    // While it runs: not readable publicly.
    expect((await server.api("GET", `/api/matches/${started.matchId}`)).status).toBe(404);
    expect((await server.api("GET", `/api/matches/${started.matchId}/hands`)).status).toBe(404);
    expect((await server.api("GET", `/api/matches/${started.matchId}/hands?format=phh`)).status).toBe(404);
    await wsA.next((m) => m.type === "match_ended", 30_000);
    await wsB.next((m) => m.type === "match_ended", 30_000);
    // Bob owns both bots, so with his token the history has every hole card (an anonymous reader gets
    // null for those not shown down, and would make the checks below compare against "null").
    const hands = (await server.api("GET", `/api/matches/${started.matchId}/hands`, { token: bob.token })).body.hands;
    expect(hands.length).toBeGreaterThan(0);
    let handsChecked = 0;
    let unshownChecked = 0;
    let ownCardMessages = 0;
    for (const [ws, mine] of [[wsA, a.botId], [wsB, b.botId]] as const) {
      for (const hand of hands) {
        const other = hand.players.find((p: any) => p.botId !== mine);
        const holeEvent = hand.events.find((e: any) => e.type === "hole_cards" && e.seat === other.seat);
        expect({ hand: hand.handNumber, cards: holeEvent?.cards?.length }).toEqual({ hand: hand.handNumber, cards: 2 });
        const cards: string[] = holeEvent.cards;
        // Messages of this hand, up to its hand_ended, never carry the other's cards (showdown excepted).
        const messages = ws.messages.filter((m) => m.handNumber === hand.handNumber && m.type !== "hand_ended");
        const text = JSON.stringify(messages);
        const ended = ws.messages.find((m) => m.type === "hand_ended" && m.handNumber === hand.handNumber);
        expect({ hand: hand.handNumber, ended: ended !== undefined }).toEqual({ hand: hand.handNumber, ended: true });
        const shown = JSON.stringify(ended!.showdown ?? []).includes(JSON.stringify(cards));
        // The bot's own cards are in its hand_started and action_requests; never the other's.
        const withOwnCards = messages.filter((m) => m.type === "hand_started" || m.type === "action_request");
        expect(withOwnCards.length).toBeGreaterThan(0);
        for (const m of withOwnCards) {
          expect(m.holeCards).toHaveLength(2);
          expect(JSON.stringify(m.holeCards)).not.toBe(JSON.stringify(cards));
        }
        ownCardMessages += withOwnCards.length;
        expect(text.includes(JSON.stringify(cards))).toBe(false);
        if (!shown) {
          expect(JSON.stringify(ended).includes(JSON.stringify(cards))).toBe(false);
          unshownChecked += 1;
        }
        handsChecked += 1;
      }
    }
    // Every hand from both sides, some of them folded before a showdown.
    expect(handsChecked).toBe(2 * hands.length);
    expect(unshownChecked).toBeGreaterThan(0);
    expect(ownCardMessages).toBeGreaterThanOrEqual(2 * hands.length);
    wsA.disconnect();
    wsB.disconnect();
  });

  test("no internals (stack traces, SQL, file paths) in any error body we can provoke", async () => {
    const bot = await createBot(server, alice.token, "errs");
    const provoked: Array<[string, string, { body?: unknown; token?: string; headers?: Record<string, string> }]> = [
      ["GET", "/api/me", {}],
      ["GET", "/api/me", { token: "x.y.z" }],
      ["POST", "/api/auth/register", { body: { email: "dup@example.com", password: "a long password" } }],
      ["POST", "/api/auth/register", { body: { email: "dup@example.com", password: "a long password" } }],
      ["POST", "/api/auth/login", { body: { email: "dup@example.com", password: "wrong password" } }],
      ["POST", "/api/bots", { token: alice.token, body: { name: "errs" } }],
      ["POST", "/api/bots", { token: alice.token, body: { name: 1 } }],
      ["GET", "/api/bots/bot_nope", {}],
      ["POST", "/api/me/balance/faucet", { token: alice.token }],
      ["GET", "/api/me/transactions?limit=0", { token: alice.token }],
      ["GET", "/api/me/transactions?before=tx_nope", { token: alice.token }],
      ["POST", "/api/tables", { token: alice.token, body: { smallBlind: 20, bigBlind: 10 } }],
      ["POST", "/api/tables", { token: alice.token, body: { bigBlind: 2000, buyIn: 1000 } }],
      ["POST", "/api/tables/tbl_nope/join", { token: alice.token, body: { botId: bot.botId } }],
      ["POST", "/api/tables/tbl_nope/leave", { token: alice.token, body: { botId: bot.botId } }],
      ["POST", "/api/tables", { token: alice.token, body: { buyIn: 1_000_000_000, bigBlind: 10 } }],
      ["GET", "/api/matches/m_nope", {}],
      ["GET", "/api/matches/m_nope/hands?format=xml", {}],
      ["GET", "/api/matches?before=m_nope", {}],
      ["GET", "/api/stats/bot_nope", {}],
      ["GET", "/api/stats?limit=-1", {}],
      ["GET", "/nope", {}],
      ["POST", "/api/bots", { token: alice.token, headers: { "content-type": "text/plain" }, body: "x" }],
    ];
    const statuses: number[] = [];
    for (const [method, path, options] of provoked) {
      const r = await callApi(server.url, method, path, options);
      statuses.push(r.status);
      if (r.status >= 400) expect({ path, problem: errorShapeProblem(r.body) }).toEqual({ path, problem: null });
    }
    // A whale join: 402 with no internals either.
    const whale = (await server.api("POST", "/api/tables", { token: alice.token, body: { buyIn: 1_000_000_000, bigBlind: 10 } })).body.tableId;
    const r = await server.api("POST", `/api/tables/${whale}/join`, { token: alice.token, body: { botId: bot.botId } });
    expect(r.status).toBe(402);
    expect(errorShapeProblem(r.body)).toBeNull();
    expect(statuses.filter((s) => s >= 400).length).toBeGreaterThan(15);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });
});
