/** Issue 39: /tv plays rated matches at a pace a person can read, the same moment for every viewer, and moves on. */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { collectErrors, launchChromium, sidewaysOverflow } from "./fixture";

setDefaultTimeout(90_000);

let server: TestServer;
let browser: Browser;
const matchIds: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  // One hand per match on TV, at the default pace (one action a second): a program lasts seconds.
  server = await startTestServer("web_tv", { TV_HANDS_PER_MATCH: "1" });
  browser = await launchChromium();
  const a = await registerWithCredits(server, "tv-a");
  const b = await registerWithCredits(server, "tv-b");
  const hero = await createBot(server, a.token, "Telly Raiser", "raiser");
  const villain = await createBot(server, b.token, "Telly Caller", "caller");
  for (let i = 0; i < 2; i++) {
    const tableId = (await server.api("POST", "/api/tables", { token: a.token, body: { maxPlayers: 2, maxHands: 6, buyIn: 500 } })).body.tableId;
    await server.api("POST", `/api/tables/${tableId}/join`, { token: a.token, body: { botId: hero.botId } });
    await server.api("POST", `/api/tables/${tableId}/join`, { token: b.token, body: { botId: villain.botId } });
    matchIds.push((await until(async () => ((await server.api("GET", `/api/tables/${tableId}`)).body as any).matchId && (await server.api("GET", `/api/tables/${tableId}`)).body.status === "finished" && (await server.api("GET", `/api/tables/${tableId}`)).body.matchId, 30_000, "a match to finish")) as string);
  }
  await until(async () => (await server.api("GET", `/api/ratings/${hero.botId}`)).body.matchesPlayed >= 2, 20_000, "both matches rated");
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

async function openTv(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = collectErrors(page);
  page.on("close", () => consoleErrors.push(...errors));
  expect((await page.goto(`${server.url}/tv`))!.status()).toBe(200);
  await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#tv")?.dataset.step) >= 0);
  return page;
}

const tvState = (page: Page) =>
  page.locator("#tv").evaluate((el) => ({ match: el.dataset.match!, hand: Number(el.dataset.hand), frame: Number(el.dataset.frame), step: Number(el.dataset.step), log: el.ownerDocument.querySelectorAll("#tv-log li").length }));

test("TV plays a rated match one action a second, with names, stacks, the board and the pot, and says how it picks and how far behind it runs", async () => {
  const page = await openTv();
  const first = await tvState(page);
  expect(matchIds).toContain(first.match);
  expect(await page.locator("#table .seat").count()).toBe(2);
  expect(await page.locator("#table .seat a").allTextContents()).toEqual(expect.arrayContaining(["Telly Raiser", "Telly Caller"]));
  expect(await page.locator("#table .seat .stack").count()).toBe(2);
  expect(await page.locator("#table [data-pot]").count()).toBe(1);
  expect(await page.locator("#table .board").count()).toBe(1);
  expect(await page.locator("#tv-how").textContent()).toContain("highest average rating");
  expect(await page.locator("#tv-behind").textContent()).toMatch(/this hand was played about \d+ (s|min|h) ago/);
  // The page's own clock, at each change of the action shown: three changes, each one action on, a second or so apart.
  const changes = await page.evaluate(
    () =>
      new Promise<Array<{ at: number; step: number }>>((resolve) => {
        const tv = (globalThis as any).document.querySelector("#tv");
        const seen: Array<{ at: number; step: number }> = [];
        new (globalThis as any).MutationObserver(() => {
          seen.push({ at: performance.now(), step: Number(tv.dataset.step) });
          if (seen.length === 3) resolve(seen);
        }).observe(tv, { attributes: true, attributeFilter: ["data-step"] });
      }),
  );
  expect(changes.length).toBe(3);
  for (let i = 1; i < changes.length; i++) {
    expect(changes[i].step - changes[i - 1].step).toBe(1);
    // At human pace: never faster than the 1 s pace allows (the page looks five times a second).
    expect(changes[i].at - changes[i - 1].at).toBeGreaterThanOrEqual(750);
  }
  await page.close();
});

test("a viewer who opens TV mid-hand gets the hand so far, in step with the others; then TV switches to the next match", async () => {
  const watcher = await openTv();
  await watcher.waitForFunction(() => Number((globalThis as any).document.querySelector("#tv")?.dataset.frame) >= 2);
  const late = await openTv();
  const [seen, joined] = [await tvState(watcher), await tvState(late)];
  expect(joined.match).toBe(seen.match);
  expect(Math.abs(joined.step - seen.step)).toBeLessThanOrEqual(1);
  // Every action of the hand so far is listed: one line per action shown.
  expect(joined.log).toBe(joined.frame);
  expect(joined.frame).toBeGreaterThanOrEqual(1);
  await late.close();
  // The program (one hand of this match) plays out, and the other rated match comes on.
  await watcher.waitForFunction((match) => (globalThis as any).document.querySelector("#tv")?.dataset.match !== match, seen.match, { timeout: 60_000 });
  const next = await tvState(watcher);
  expect(matchIds).toContain(next.match);
  expect(next.match).not.toBe(seen.match);
  await watcher.close();
});

test("at 375 px wide /tv does not overflow sideways", async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  const errors = collectErrors(page);
  await page.goto(`${server.url}/tv`);
  await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#tv")?.dataset.step) >= 0);
  expect(await sidewaysOverflow(page, 375)).toEqual({ wide: [], scrollWidth: 375 });
  await page.close();
  consoleErrors.push(...errors);
});

test("no TV page wrote a console error", () => {
  expect(consoleErrors).toEqual([]);
});
