import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { parsePhhs } from "../../src/poker/phh";
import { formatCard } from "@poker-bots/core/cards";
import type { StoredHand } from "../../src/modules/match-host/hand-history";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { until } from "../support/nodes";
import { Spectator } from "../support/spectator";
import { WsBot, type Message } from "../support/ws-bot";
import { storedHands as storedHandsOf } from "../support/stored-hands";

setDefaultTimeout(90_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("hole_card_privacy");
});
afterAll(() => server.close());

/** Every hand as stored (every card), straight from the database: the ground truth. */
function storedHands(matchId: string): Promise<StoredHand[]> {
  return storedHandsOf(server.testDb.url, matchId);
}

/**
 * The hole cards of every seat that did not show them down, by hand number, as the texts a leak
 * would carry. Per hand: with 160 deals in a match, the same two cards come up in different hands.
 */
function unshownHoleCards(hands: StoredHand[], exceptBots: Set<string> = new Set()): Map<number, string[][]> {
  const leaks = new Map<number, string[][]>();
  for (const hand of hands) {
    const shown = new Set(hand.events.flatMap((e) => (e.type === "show" ? [e.seat] : [])));
    const botAt = new Map(hand.players.map((p) => [p.seat, p.botId]));
    const forms: string[][] = [];
    for (const e of hand.events) {
      if (e.type !== "hole_cards" || shown.has(e.seat) || exceptBots.has(botAt.get(e.seat)!)) continue;
      const [a, b] = e.cards.map(formatCard);
      forms.push([a + b, b + a, JSON.stringify([a, b])]);
    }
    leaks.set(hand.handNumber, forms);
  }
  return leaks;
}

const countOf = (leaks: Map<number, string[][]>) => [...leaks.values()].reduce((sum, forms) => sum + forms.length, 0);

/** A hole-card pair as a whole token ("Tc3c" but not inside the board "9hTc3c"), or as a JSON pair. */
function mentions(text: string, form: string): boolean {
  if (form.startsWith("[")) return text.includes(form);
  return new RegExp(`(^|[^A-Za-z0-9])${form}([^A-Za-z0-9]|$)`, "m").test(text);
}

/** `texts` by hand number (null: not about one hand, checked against every hand). */
function expectNoLeak(texts: Array<{ hand: number | null; text: string }>, leaks: Map<number, string[][]>): void {
  // Something to look in, and something to look for.
  expect(texts.length).toBeGreaterThan(0);
  expect(countOf(leaks)).toBeGreaterThan(0);
  const found: string[] = [];
  for (const { hand, text } of texts) {
    const candidates = hand === null ? [...leaks.values()].flat() : (leaks.get(hand) ?? []);
    for (const forms of candidates) if (forms.some((form) => mentions(text, form))) found.push(`hand ${hand}: ${forms[0]}`);
  }
  expect(found).toEqual([]);
}

/** A hand-history set split by hand: JSON `hands[]` or PHH tables `[n]`. */
function byHand(text: string, format: "json" | "phh"): Array<{ hand: number; text: string }> {
  if (format === "phh") return parsePhhs(text).map(({ id, hand }) => ({ hand: Number(id), text: hand.actions.join("\n") }));
  return JSON.parse(text).hands.map((h: any) => ({ hand: h.handNumber, text: JSON.stringify(h) }));
}

const getText = async (path: string, token?: string) => {
  const response = await fetch(server.url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, text: await response.text() };
};

interface PlayedMatch {
  tableId: string;
  matchId: string;
  alice: { token: string; developerId: string };
  bob: { token: string; developerId: string };
  aliceBots: string[];
  bobBots: string[];
  watched: Message[];
  /** Public texts read while the match was running. */
  duringMatch: string[];
  /** Polls that saw the match running and found its record and hands (JSON, PHH) all 404. */
  runningPolls: number;
  remote: WsBot;
}

/** Alice: a remote bot and a built-in; Bob: two built-ins. A spectator watches throughout. */
async function playWatchedMatch(): Promise<PlayedMatch> {
  const alice = await registerWithCredits(server, "alice");
  const bob = await registerWithCredits(server, "bob");
  const remoteBot = await createBot(server, alice.token, "remote");
  // The remote bot holds its answers until a poll has seen the match running (and checked what a
  // running match shows): otherwise the built-ins could finish it between two polls.
  let runningChecked = false;
  let releaseHeld!: () => void;
  const seenRunning = new Promise<void>((resolve) => (releaseHeld = resolve));
  const remote = await new WsBot(server.url, remoteBot.apiKey, (request, bot) => {
    const legal: string[] = request.legalActions;
    const answer = { action: legal.includes("check") ? "check" : request.toCall > 40 ? "fold" : "call" };
    if (runningChecked) return answer;
    void seenRunning.then(() => bot.send({ type: "action", requestId: request.requestId, ...answer }));
    return "silent";
  }).connect();
  const aliceBots = [remoteBot.botId, (await createBot(server, alice.token, "atight", "tight")).botId];
  const bobBots = [(await createBot(server, bob.token, "bcaller", "caller")).botId, (await createBot(server, bob.token, "btight", "tight")).botId];
  const table = await server.api("POST", "/api/tables", { token: alice.token, body: { maxPlayers: 4, maxHands: 40, buyIn: 1000 } });
  const tableId = table.body.tableId;
  const watcher = await Spectator.watch(server.url, tableId);
  const watched = watcher.messages;
  for (const botId of aliceBots) expect((await server.api("POST", `/api/tables/${tableId}/join`, { token: alice.token, body: { botId } })).status).toBe(201);
  for (const botId of bobBots) expect((await server.api("POST", `/api/tables/${tableId}/join`, { token: bob.token, body: { botId } })).status).toBe(201);
  const duringMatch: string[] = [];
  let matchId: string | null = null;
  let runningPolls = 0;
  // Poll (bounded) until the match is over, checking what each poll of the running match shows.
  await until(async () => {
    const view = await getText(`/api/tables/${tableId}`);
    duringMatch.push(view.text, (await getText("/api/tables")).text);
    const parsed = JSON.parse(view.text);
    matchId = parsed.matchId;
    if (parsed.status === "finished") return true;
    if (matchId) {
      let notFound = 0;
      for (const path of [`/api/matches/${matchId}`, `/api/matches/${matchId}/hands`, `/api/matches/${matchId}/hands?format=phh`]) {
        const read = await getText(path);
        if (read.status === 200) expect(JSON.parse((await getText(`/api/tables/${tableId}`)).text).status).toBe("finished");
        else {
          expect(read.status).toBe(404); // a running match has no public record yet
          duringMatch.push(read.text);
          notFound += 1;
        }
      }
      if (parsed.status === "running" && notFound === 3) {
        runningPolls += 1;
        runningChecked = true;
        releaseHeld();
      }
    }
    return false;
  }, 60_000, "the watched match to finish");
  await watcher.next((m) => m.type === "match_ended");
  watcher.close();
  // The checks above ran on a running match at least once (the remote bot waited for it).
  expect(runningPolls).toBeGreaterThan(0);
  return { tableId, matchId: matchId!, alice, bob, aliceBots, bobBots, watched, duringMatch, runningPolls, remote };
}

let played: PlayedMatch;

describe("what a rival may see: hole cards only where they were shown down", () => {
  beforeAll(async () => {
    played = await playWatchedMatch();
  });

  test("anonymous JSON and PHH histories hide every hole card not shown down, and the PHH still parses", async () => {
    const hands = await storedHands(played.matchId);
    const leaks = unshownHoleCards(hands);
    expect(countOf(leaks)).toBeGreaterThan(0);
    const json = await server.api("GET", `/api/matches/${played.matchId}/hands`);
    expect(json.status).toBe(200);
    let holeEvents = 0;
    for (const hand of json.body.hands) {
      const shown = new Set(hand.events.filter((e: any) => e.type === "show").map((e: any) => e.seat));
      for (const e of hand.events.filter((e: any) => e.type === "hole_cards")) {
        expect(e.cards === null).toBe(!shown.has(e.seat));
        holeEvents += 1;
      }
    }
    // Every hole_cards event of every hand was checked.
    expect(json.body.hands).toHaveLength(hands.length);
    expect(holeEvents).toBe(hands.reduce((sum, hand) => sum + hand.events.filter((e) => e.type === "hole_cards").length, 0));
    expect(holeEvents).toBeGreaterThan(0);
    const phh = await getText(`/api/matches/${played.matchId}/hands?format=phh`);
    expect(phh.text).toContain("????");
    expect(phh.text).not.toMatch(/^match = /m);
    expect(phh.text).toMatch(/^_match = /m);
    expect(parsePhhs(phh.text)).toHaveLength(hands.length);
    expectNoLeak([...byHand(JSON.stringify(json.body), "json"), ...byHand(phh.text, "phh")], leaks);
  });

  test("a developer with their token also sees their own bots' hole cards, and nobody else's", async () => {
    const hands = await storedHands(played.matchId);
    const asAlice = await getText(`/api/matches/${played.matchId}/hands?format=phh`, played.alice.token);
    const asAliceJson = await getText(`/api/matches/${played.matchId}/hands`, played.alice.token);
    // Bob's unshown cards stay hidden from Alice…
    expectNoLeak([...byHand(asAlice.text, "phh"), ...byHand(asAliceJson.text, "json")], unshownHoleCards(hands, new Set(played.aliceBots)));
    // …and every one of Alice's own is there.
    const own = unshownHoleCards(hands, new Set(played.bobBots));
    expect(countOf(own)).toBeGreaterThan(0);
    const aliceByHand = new Map(byHand(asAlice.text, "phh").map((h) => [h.hand, h.text]));
    for (const [hand, forms] of own) for (const pair of forms) expect(mentions(aliceByHand.get(hand)!, pair[0])).toBe(true);
    // A bad token is refused, not read as anonymous.
    expect((await getText(`/api/matches/${played.matchId}/hands`, "not.a.token")).status).toBe(401);
  });

  test("a developer whose bots are every player gets the full history", async () => {
    const dev = await registerWithCredits(server, "solo");
    const bots = [(await createBot(server, dev.token, "s1", "caller")).botId, (await createBot(server, dev.token, "s2", "tight")).botId];
    const table = await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 20 } });
    for (const botId of bots) await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId } });
    const matchId = await until(async () => {
      const view = await server.api("GET", `/api/tables/${table.body.tableId}`);
      return view.body.status === "finished" && (view.body.matchId as string);
    }, 30_000, "the solo match to finish");
    const full = await server.api("GET", `/api/matches/${matchId}/hands`, { token: dev.token });
    const holes = full.body.hands.flatMap((h: any) => h.events.filter((e: any) => e.type === "hole_cards"));
    expect(holes.length).toBeGreaterThan(0);
    expect(holes.every((e: any) => Array.isArray(e.cards) && e.cards.length === 2)).toBe(true);
    const anonymous = await server.api("GET", `/api/matches/${matchId}/hands`);
    expect(anonymous.body.hands.flatMap((h: any) => h.events.filter((e: any) => e.type === "hole_cards" && e.cards === null)).length).toBeGreaterThan(0);
  });

  test("every public route and socket, during and after the match, carries no card that was not shown down", async () => {
    const hands = await storedHands(played.matchId);
    const leaks = unshownHoleCards(hands);
    const routes = [
      `/api/tables`,
      `/api/tables/${played.tableId}`,
      `/api/matches`,
      `/api/matches?botId=${played.aliceBots[0]}`,
      `/api/matches/${played.matchId}`,
      `/api/matches/${played.matchId}/hands`,
      `/api/matches/${played.matchId}/hands?format=json`,
      `/api/matches/${played.matchId}/hands?format=phh`,
      `/api/stats`,
      ...[...played.aliceBots, ...played.bobBots].map((botId) => `/api/stats/${botId}`),
      `/api/bots`,
    ];
    // Texts read while the match ran (the polls that saw it running are counted in playWatchedMatch).
    expect(played.runningPolls).toBeGreaterThan(0);
    const texts: Array<{ hand: number | null; text: string }> = played.duringMatch.map((text) => ({ hand: null, text }));
    for (const path of routes) {
      const read = await getText(path);
      expect({ path, status: read.status }).toEqual({ path, status: 200 });
      if (path.includes("/hands")) texts.push(...byHand(read.text, path.endsWith("phh") ? "phh" : "json"));
      else texts.push({ hand: null, text: read.text });
    }
    expect(played.watched.some((m) => m.type === "hand_ended")).toBe(true);
    // Messages between hand_started and hand_ended belong to that hand.
    const perHand = (messages: Message[]) => {
      let current: number | null = null;
      return messages.map((m) => {
        if (typeof m.handNumber === "number") current = m.handNumber;
        const hand = m.type === "match_started" || m.type === "match_ended" || m.type === "watching" ? null : current;
        return { hand, text: JSON.stringify(m) };
      });
    };
    expectNoLeak(perHand(played.watched), leaks);
    // The remote bot itself saw its own cards, and no one else's unshown ones.
    expectNoLeak(perHand(played.remote.messages), unshownHoleCards(hands, new Set([played.aliceBots[0]])));
    const remoteHands = played.remote.ofType("hand_started");
    expect(remoteHands.length).toBeGreaterThan(0);
    expect(remoteHands.every((m) => Array.isArray(m.holeCards) && m.holeCards.length === 2)).toBe(true);
  });
});
