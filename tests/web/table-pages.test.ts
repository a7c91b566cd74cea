/**
 * /tables/:id as a spectator finds it: a finished, aborted or closed table says so (and links its
 * replay), a waiting one lists its seats, a table opened mid-hand shows that hand at once (hole
 * cards hidden), and "What just happened" reads like `cli watch`: names and amounts.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startTestServer, createBot, registerWithCredits, type TestServer } from "../support/server";
import { until } from "../support/nodes";
import { Spectator } from "../support/spectator";
import { WsBot } from "../support/ws-bot";
import { launchChromium, openPage } from "./fixture";
import { fixtureSource, uploadOverHttp } from "../hosted/duplicate-support";

setDefaultTimeout(60_000);

let server: TestServer;
let browser: Browser;
let token: string;
const errors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer("web_table_pages", { TIME_BANK_MS: "0", TIME_BANK_CAP_MS: "0" }), launchChromium()]);
  ({ token } = await registerWithCredits(server, "tables"));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const open = (path: string): Promise<Page> => openPage(browser, `${server.url}${path}`, errors);

const newTable = async (body: Record<string, unknown>) => (await server.api("POST", "/api/tables", { token, body })).body.tableId as string;
const seat = (tableId: string, botId: string) => server.api("POST", `/api/tables/${tableId}/join`, { token, body: { botId } });

test("a finished table says so and links its match replay; a closed one says it was closed; neither draws a felt", async () => {
  const [alpha, beta] = [await createBot(server, token, "Alpha", "raiser"), await createBot(server, token, "Beta", "caller")];
  const finishedId = await newTable({ maxPlayers: 2, maxHands: 3 });
  await seat(finishedId, alpha.botId);
  await seat(finishedId, beta.botId);
  const table = await until(async () => {
    const view = (await server.api("GET", `/api/tables/${finishedId}`)).body;
    return view.status === "finished" && view;
  }, 20_000, "the 3-hand match to finish");
  const page = await open(`/tables/${finishedId}`);
  expect(await page.locator("#status").textContent()).toContain("This table is finished: its match is over.");
  expect(await page.locator(`#status a[href="/matches/${table.matchId}"]`).textContent()).toBe("Watch its match replay");
  const body = (await page.locator("main").textContent())!;
  expect(body).not.toContain("No live table");
  expect(body).not.toContain("waiting for the next hand");
  expect(await page.locator(".felt, script[src*='live']").count()).toBe(0);
  await page.close();

  const closedId = await newTable({ maxPlayers: 2 });
  expect((await server.api("DELETE", `/api/tables/${closedId}`, { token })).status).toBe(200);
  const closed = await open(`/tables/${closedId}`);
  expect(await closed.locator("#status").textContent()).toBe("This table was closed by its creator before any match.");
  expect(await closed.locator(".felt, #status a").count()).toBe(0);
  await closed.close();
});

test("a waiting table lists who sits there and how many seats are left", async () => {
  const waiter = await createBot(server, token, "Waiter", "tight");
  const tableId = await newTable({ maxPlayers: 3, buyIn: 300 });
  await seat(tableId, waiter.botId);
  const page = await open(`/tables/${tableId}`);
  expect(await page.locator("#seats li").allTextContents()).toEqual(["seat 0: Waiter · 300 chips"]);
  expect(await page.locator("main").textContent()).toContain("Waiting for 2 more bots: the match starts when every seat is taken.");
  await page.close();
});

test("a duplicate pair's tables name each other; a hosted bot's page carries the hosted mark (public by design), a built-in's does not", async () => {
  const pair = (await server.api("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2 } })).body;
  const first = await open(`/tables/${pair.tableId}`);
  expect(await first.locator("#twin").textContent()).toBe("copy 1 of a duplicate match (the same decks, seats swapped, at copy 2)");
  expect(await first.locator(`#twin a[href="/tables/${pair.twinTableId}"]`).count()).toBe(1);
  await first.close();
  const second = await open(`/tables/${pair.twinTableId}`);
  expect(await second.locator(`#twin a[href="/tables/${pair.tableId}"]`).textContent()).toBe("copy 1");
  await second.close();

  const hosted = await createBot(server, token, "Hosted One");
  await uploadOverHttp(server.url, token, hosted.botId, await fixtureSource("calling-station"));
  const builtIn = await createBot(server, token, "Built In", "caller");
  const marked = await open(`/bots/${hosted.botId}`);
  expect(await marked.locator("h1 [data-hosted]").textContent()).toBe("hosted");
  await marked.close();
  const plain = await open(`/bots/${builtIn.botId}`);
  expect(await plain.locator("[data-hosted]").count()).toBe(0);
  await plain.close();
});

test("opened mid-hand: the hand at once (no hole cards), then the log in cli watch's words, with names and amounts", async () => {
  const silent = await createBot(server, token, "Silent Sam");
  const steady = await createBot(server, token, "Steady", "caller");
  const bot = await new WsBot(server.url, silent.apiKey, () => "silent").connect();
  const tableId = await newTable({ maxPlayers: 2, maxHands: 3, actionTimeoutMs: 30_000 });
  await seat(tableId, silent.botId);
  await seat(tableId, steady.botId);
  // The hand now waits for Silent Sam's answer: hand 1 is in play for as long as this test needs.
  const request = await bot.next((m) => m.type === "action_request", 20_000);

  const watcher = await Spectator.watch(server.url, tableId);
  await watcher.next((m) => m.type === "snapshot");
  watcher.close();
  const watched = watcher.messages;
  expect(watched.map((m) => m.type)).toEqual(["watching", "snapshot"]);
  const snapshot = watched[1];
  expect(snapshot.handNumber).toBe(1);
  expect([snapshot.hand.street, snapshot.hand.yourSeat, snapshot.hand.holeCards, snapshot.hand.toAct]).toEqual(["preflop", null, null, request.yourSeat]);
  expect(snapshot.hand.seats.map((s: { botId: string }) => s.botId).sort()).toEqual([silent.botId, steady.botId].sort());

  const page = await open(`/tables/${tableId}`);
  await page.waitForFunction(() => (globalThis as any).document.querySelector("#live")?.getAttribute("data-hand") === "1");
  expect(await page.locator("#hand").textContent()).toBe("hand 1");
  expect(Number(await page.locator("[data-pot]").textContent())).toBe(snapshot.hand.pot);
  expect(await page.locator("#table .seat").count()).toBe(2);
  // Preflop: no board, and no seat's hole cards.
  expect(await page.locator("#table .card").count()).toBe(0);
  expect(await page.locator("#log li").first().textContent()).toBe(`hand 1 in play · preflop · pot ${snapshot.hand.pot}`);

  // Let the match play out: the page narrates it by name, as `cli watch` does.
  bot.policy = (r) => ({ action: r.legalActions.includes("check") ? "check" : "call" });
  bot.send({ type: "action", requestId: request.requestId, action: request.legalActions.includes("check") ? "check" : "call" });
  await page.waitForFunction(() => (globalThis as any).document.querySelector("#status")?.textContent.startsWith("match over"), undefined, { timeout: 30_000 });
  const log = await page.locator("#log li").allTextContents();
  expect(log.some((line) => /^hand \d · seat \d \(Silent Sam\) (calls \d+|checks)$/.test(line))).toBe(true);
  expect(log.some((line) => /^hand \d · seat \d \((Silent Sam|Steady)\) wins \d+/.test(line))).toBe(true);
  expect(log).toContain("match over after 3 hands");
  expect(log.some((line) => /^ {2}Steady: \d+ chips \([+-]?\d+\)$/.test(line))).toBe(true);
  expect(log.filter((line) => /\b(call|check|raise|fold)\b(?!s)/.test(line) || /(?<!button )seat \d (?!\()/.test(line))).toEqual([]);
  await page.close();
  bot.disconnect();
});

test("no page wrote a console error", () => {
  expect(errors).toEqual([]);
});
