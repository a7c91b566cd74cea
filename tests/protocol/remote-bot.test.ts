import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { auditLedger } from "../../src/modules/credits/audit";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { Spectator } from "../support/spectator";
import { WsBot, type Message } from "../support/ws-bot";

// Integration tests talk to a real Postgres and play whole matches (the default is 5 s per test).
setDefaultTimeout(60_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("remote_bot", { TIME_BANK_MS: "200", TIME_BANK_REFILL_MS: "50", TIME_BANK_CAP_MS: "400" });
});
afterAll(() => server.close());

async function expectAuditClean() {
  const report = await auditLedger(server.database.db);
  expect(report.problems).toEqual([]);
}

async function tableWith(token: string, body: Record<string, unknown>) {
  const table = await server.api("POST", "/api/tables", { token, body });
  expect(table.status).toBe(201);
  return table.body.tableId as string;
}

async function join(token: string, tableId: string, botId: string) {
  const joined = await server.api("POST", `/api/tables/${tableId}/join`, { token, body: { botId } });
  expect(joined.status).toBe(201);
  return joined.body;
}

const callOrCheck = (request: Message) => ({ action: request.legalActions.includes("check") ? "check" : "call" });

describe("the bot protocol over a real WebSocket", () => {
  test("connecting needs a valid api key (header or query); a bad one is refused", async () => {
    const dev = await registerWithCredits(server, "keys");
    const bot = await createBot(server, dev.token, "keyed");
    const viaQuery = await new WsBot(server.url, bot.apiKey, undefined, "query").connect();
    const welcome = viaQuery.ofType("welcome")[0];
    expect(welcome).toMatchObject({ type: "welcome", botId: bot.botId, name: "keyed", protocolVersion: 1 });
    viaQuery.disconnect();
    const refused = new WebSocket(server.url.replace("http", "ws") + "/api/bots/connect?apiKey=pbk_wrong");
    const outcome = await new Promise<string>((resolve) => {
      refused.onopen = () => resolve("open");
      refused.onerror = () => resolve("error");
      refused.onclose = () => resolve("closed");
    });
    expect(outcome).not.toBe("open");
  });

  test("a remote bot plays a whole match against a built-in; every message is well formed", async () => {
    const dev = await registerWithCredits(server, "whole");
    const remote = await createBot(server, dev.token, "remote");
    const house = await createBot(server, dev.token, "house", "raiser");
    const bot = await new WsBot(server.url, remote.apiKey, callOrCheck).connect();
    const tableId = await tableWith(dev.token, { maxPlayers: 2, maxHands: 15, actionTimeoutMs: 1000 });
    await join(dev.token, tableId, remote.botId);
    await join(dev.token, tableId, house.botId);
    const ended = await bot.next((m) => m.type === "match_ended");
    expect(bot.ofType("match_started")[0]).toMatchObject({ tableId, yourSeat: 0 });
    const handsStarted = bot.ofType("hand_started");
    expect(ended.handsPlayed).toBeGreaterThan(0);
    expect(handsStarted.length).toBe(ended.handsPlayed);
    for (const hand of handsStarted) {
      expect(hand.holeCards).toHaveLength(2);
      for (const card of hand.holeCards) expect(card).toMatch(/^[2-9TJQKA][cdhs]$/);
    }
    const request = bot.ofType("action_request")[0];
    expect(request).toMatchObject({ tableId, street: "preflop", yourSeat: 0 });
    expect(typeof request.requestId).toBe("string");
    expect(typeof request.pot).toBe("number");
    expect(typeof request.toCall).toBe("number");
    expect(Array.isArray(request.legalActions)).toBe(true);
    expect(Date.parse(request.deadline)).toBeGreaterThan(0);
    expect(request.seats).toHaveLength(2);
    expect(bot.ofType("hand_ended").length).toBe(ended.handsPlayed);
    expect(bot.ofType("error")).toEqual([]);
    const record = await server.api("GET", `/api/matches/${ended.matchId}`);
    expect(record.status).toBe(200);
    expect(record.body.players.map((p: any) => p.finalChips).reduce((a: number, b: number) => a + b, 0)).toBe(2000);
    bot.disconnect();
    await expectAuditClean();
  });

  test("a silent bot is checked or folded at its deadline and the match completes", async () => {
    const dev = await registerWithCredits(server, "silent");
    const silent = await createBot(server, dev.token, "silent");
    const house = await createBot(server, dev.token, "house", "caller");
    const bot = await new WsBot(server.url, silent.apiKey, () => "silent").connect();
    const tableId = await tableWith(dev.token, { maxPlayers: 2, maxHands: 3, actionTimeoutMs: 60 });
    await join(dev.token, tableId, silent.botId);
    await join(dev.token, tableId, house.botId);
    const ended = await bot.next((m) => m.type === "match_ended");
    const hands = await server.api("GET", `/api/matches/${ended.matchId}/hands`);
    const silentActions = hands.body.hands.flatMap((h: any) =>
      h.events.filter((e: any) => e.type === "action" && e.seat === 0).map((e: any) => e.action),
    );
    expect(silentActions.length).toBeGreaterThan(0);
    for (const action of silentActions) expect(["check", "fold"]).toContain(action);
    // The bank is spent by the first timeout: later deadlines are the bare per-action timeout.
    const requests = bot.ofType("action_request");
    expect(requests[0].timeBankMs).toBe(200);
    expect(requests.at(-1)!.timeBankMs).toBe(0);
    bot.disconnect();
    await expectAuditClean();
  });

  test("an illegal action gets an error and the request stays open; late and duplicate answers are ignored", async () => {
    const dev = await registerWithCredits(server, "illegal");
    const remote = await createBot(server, dev.token, "clumsy");
    const house = await createBot(server, dev.token, "house", "caller");
    let tried = 0;
    const bot = await new WsBot(server.url, remote.apiKey, (request, self) => {
      if (tried++ > 0) return callOrCheck(request);
      self.send({ type: "action", requestId: request.requestId, action: "raise", amount: 1 });
      self.send({ type: "action", requestId: request.requestId, action: "dance" });
      self.send("this is not json");
      self.send({ type: "action", requestId: "req_someone_else", action: "fold" });
      setTimeout(() => {
        self.send({ type: "action", requestId: request.requestId, ...callOrCheck(request) });
        self.send({ type: "action", requestId: request.requestId, action: "fold" });
      }, 20);
      return null;
    }).connect();
    const tableId = await tableWith(dev.token, { maxPlayers: 2, maxHands: 2, actionTimeoutMs: 3000 });
    await join(dev.token, tableId, remote.botId);
    await join(dev.token, tableId, house.botId);
    const ended = await bot.next((m) => m.type === "match_ended");
    const errors = bot.ofType("error");
    const firstRequestId = bot.ofType("action_request")[0].requestId;
    expect(errors.map((e) => e.code)).toEqual(["ILLEGAL_ACTION", "ILLEGAL_ACTION", "BAD_MESSAGE", "STALE_REQUEST", "STALE_REQUEST"]);
    expect(errors[0].requestId).toBe(firstRequestId);
    expect(errors[0].message).toMatch(/raise|min/i);
    // The request stayed open: the legal answer sent 20 ms later was taken (a small blind's call),
    // not the timeout fallback (a fold), and the fold sent after it was ignored.
    const hands = await server.api("GET", `/api/matches/${ended.matchId}/hands`);
    const firstOwnAction = hands.body.hands[0].events.find((e: any) => e.type === "action" && e.seat === 0);
    expect(firstOwnAction.action).toBe("call");
    bot.disconnect();
  });

  test("a reconnecting bot gets a snapshot of the hand and the open request, and plays on", async () => {
    const dev = await registerWithCredits(server, "reconnect");
    const flaky = await createBot(server, dev.token, "flaky");
    const slow = await createBot(server, dev.token, "slow");
    const slowBot = await new WsBot(server.url, slow.apiKey, (request, self) => {
      setTimeout(() => self.send({ type: "action", requestId: request.requestId, ...callOrCheck(request) }), 150);
      return null;
    }).connect();
    let dropped = false;
    const flakyBot = await new WsBot(server.url, flaky.apiKey, (request, self) => {
      if (!dropped) {
        dropped = true;
        self.send({ type: "action", requestId: request.requestId, ...callOrCheck(request) });
        self.disconnect();
        return null;
      }
      return callOrCheck(request);
    }).connect();
    const tableId = await tableWith(dev.token, { maxPlayers: 2, maxHands: 3, actionTimeoutMs: 3000 });
    await join(dev.token, tableId, flaky.botId);
    await join(dev.token, tableId, slow.botId);
    await flakyBot.next((m) => m.type === "action_request");
    await flakyBot.untilClosed();
    // The slow bot checks preflop and acts first on the flop; then the flaky bot's turn comes while it is away.
    await slowBot.nth(2, (m) => m.type === "action" && m.botId === slow.botId && m.action !== "big_blind" && m.action !== "small_blind");
    const before = flakyBot.messages.length;
    await flakyBot.connect();
    const snapshot = await flakyBot.next((m) => m.type === "snapshot", 5_000, before);
    await flakyBot.next((m) => m.type === "action_request", 5_000, before);
    const afterReconnect = flakyBot.messages.slice(before);
    expect(afterReconnect.map((m) => m.type).slice(0, 3)).toEqual(["welcome", "snapshot", "action_request"]);
    expect(snapshot).toMatchObject({ tableId, status: "running" });
    // Its turn had come while it was away: the hand it rejoins waits on it.
    expect(snapshot.hand.toAct).toBe(snapshot.hand.yourSeat);
    const firstHand = flakyBot.ofType("hand_started")[0];
    expect(snapshot.hand.holeCards).toEqual(firstHand.holeCards);
    expect(afterReconnect.some((m) => m.type === "action_request")).toBe(true);
    const ended = await flakyBot.next((m) => m.type === "match_ended");
    expect(ended.handsPlayed).toBe(3);
    flakyBot.disconnect();
    slowBot.disconnect();
    await expectAuditClean();
  });

  test("in a 6-seat match of remote bots no message carries another bot's hole cards before showdown", async () => {
    const dev = await registerWithCredits(server, "secrecy");
    const bots = await Promise.all(Array.from({ length: 6 }, (_, i) => createBot(server, dev.token, `seat${i}`)));
    let counter = 0;
    const clients = await Promise.all(
      bots.map((b) =>
        new WsBot(server.url, b.apiKey, (request) => {
          counter++;
          if (request.legalActions.includes("raise") && counter % 7 === 0) return { action: "raise", amount: request.minRaiseTo };
          if (counter % 11 === 0) return { action: "fold" };
          return callOrCheck(request);
        }).connect(),
      ),
    );
    const tableId = await tableWith(dev.token, { maxPlayers: 6, maxHands: 25, actionTimeoutMs: 2000 });
    for (const b of bots) await join(dev.token, tableId, b.botId);
    const ended = await clients[0].next((m) => m.type === "match_ended");
    await Promise.all(clients.map((c) => c.next((m) => m.type === "match_ended")));
    // Every bot is this developer's: with the token, the history has every hole card.
    const history = await server.api("GET", `/api/matches/${ended.matchId}/hands`, { token: dev.token });
    const byHand = new Map<number, any>(history.body.hands.map((h: any) => [h.handNumber, h]));
    const cardPattern = /\b[2-9TJQKA][cdhs]\b/g;
    let checked = 0;
    clients.forEach((client, i) => {
      for (const message of client.messages) {
        if (message.handNumber === undefined) continue;
        const hand = byHand.get(message.handNumber);
        const holeOf = new Map<number, string[]>(
          hand.events.filter((e: any) => e.type === "hole_cards").map((e: any) => [e.seat, e.cards]),
        );
        const allowed = new Set<string>([...hand.board]);
        const mine = hand.players.find((p: any) => p.botId === bots[i].botId);
        if (mine) for (const c of holeOf.get(mine.seat) ?? []) allowed.add(c);
        if (message.type === "hand_ended") for (const shown of message.showdown) for (const c of shown.cards) allowed.add(c);
        const seen = JSON.stringify(message).match(cardPattern) ?? [];
        for (const card of seen) expect({ bot: i, type: message.type, card, allowed: allowed.has(card) }).toEqual({ bot: i, type: message.type, card, allowed: true });
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(100);
    for (const c of clients) c.disconnect();
    await expectAuditClean();
  });

  test("a spectator watching a table sees every public message and no hole cards before showdown", async () => {
    const dev = await registerWithCredits(server, "watch");
    // Seeded: the same cards every run, so the same 24 hands (the strategies are deterministic), and
    // with them the folds whose hole cards must stay hidden (an unseeded deal once ended the match
    // in its first hand with every card shown, leaving nothing to check).
    const tableId = await tableWith(dev.token, { maxPlayers: 3, maxHands: 24, seed: "spectator-hidden-cards" });
    const watcher = await Spectator.watch(server.url, tableId);
    const { messages } = watcher;
    for (const [i, strategy] of ["caller", "tight", "tight"].entries()) {
      const bot = await createBot(server, dev.token, `w-${i}-${strategy}`, strategy);
      await join(dev.token, tableId, bot.botId);
    }
    await watcher.next((m) => m.type === "match_ended");
    watcher.close();
    const types = messages.map((m) => m.type);
    expect(types[0]).toBe("watching");
    expect(types).toContain("match_started");
    const ended = messages.find((m) => m.type === "match_ended")!;
    expect(ended.handsPlayed).toBe(24);
    expect(messages.filter((m) => m.type === "hand_started")).toHaveLength(ended.handsPlayed);
    expect(messages.filter((m) => m.type === "hand_ended")).toHaveLength(ended.handsPlayed);
    for (const m of messages) {
      expect(m.holeCards).toBeUndefined();
      expect(m.yourSeat).toBeUndefined();
    }
    // (24 hands: a tight player folds most of them, so some cards stay hidden; 8 hands could all reach a showdown.)
    // Every bot is this developer's: with the token the history has every hole card (read
    // anonymously, the unshown ones are null and the check below would look for "null").
    const history = (await server.api("GET", `/api/matches/${ended.matchId}/hands`, { token: dev.token })).body.hands;
    expect(history).toHaveLength(ended.handsPlayed);
    let hiddenChecked = 0;
    for (const hand of history) {
      const shown = new Set(hand.events.filter((e: any) => e.type === "show").flatMap((e: any) => e.cards));
      const hidden = hand.events.filter((e: any) => e.type === "hole_cards").flatMap((e: any) => e.cards).filter((c: string) => !shown.has(c) && !hand.board.includes(c));
      const streamed = JSON.stringify(messages.filter((m) => m.handNumber === hand.handNumber));
      for (const card of hidden) {
        expect(card).toMatch(/^[2-9TJQKA][cdhs]$/);
        expect(streamed.includes(`"${card}"`)).toBe(false);
        hiddenChecked += 1;
      }
    }
    expect(hiddenChecked).toBeGreaterThan(0);
    const unknown = new WebSocket(`${server.url.replace("http", "ws")}/api/tables/tbl_nope/watch`);
    const reply = await new Promise<any>((resolve) => (unknown.onmessage = (event) => resolve(JSON.parse(String(event.data)))));
    expect(reply).toMatchObject({ type: "error", code: "NOT_FOUND" });
  });
});
