import { expect } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, type TestServer } from "../support/server";

/** Debian's chromium, as the CI machine has it (`.ci/run` installs it when missing). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface WebWorld {
  waitingTableId: string;
  runningTableId: string;
  matchIds: string[];
  botIds: string[];
  tokens: string[];
  runningBots: Array<{ token: string; botId: string }>;
}

/**
 * Real matches on a real server: completed matches between two developers' built-in bots, a
 * waiting table with one bot seated, and a long match that keeps running (callers, small blinds).
 */
export async function populate(server: TestServer, completedMatches = 3): Promise<WebWorld> {
  const a = await registerWithCredits(server, "web-a");
  const b = await registerWithCredits(server, "web-b");
  const hero = await createBot(server, a.token, "Ace Hunter", "raiser");
  const villain = await createBot(server, b.token, "Calling Station", "caller");
  const matchIds: string[] = [];
  for (let i = 0; i < completedMatches; i++) {
    const tableId = (await server.api("POST", "/api/tables", { token: a.token, body: { maxPlayers: 2, maxHands: 25, buyIn: 500 } })).body.tableId;
    await server.api("POST", `/api/tables/${tableId}/join`, { token: a.token, body: { botId: hero.botId } });
    await server.api("POST", `/api/tables/${tableId}/join`, { token: b.token, body: { botId: villain.botId } });
    const table = await until(async () => {
      const view = (await server.api("GET", `/api/tables/${tableId}`)).body;
      return view.status === "finished" && view;
    }, 30_000, `completed match ${i + 1} to finish`);
    matchIds.push(table.matchId);
  }
  // The ratings applier rates them a moment after they are recorded: the pages show them settled.
  await until(async () => (await server.api("GET", `/api/ratings/${hero.botId}`)).body.matchesPlayed >= completedMatches, 20_000, "the completed matches to be rated");
  const waitingTableId = (await server.api("POST", "/api/tables", { token: a.token, body: { maxPlayers: 3, buyIn: 200 } })).body.tableId;
  const waiter = await createBot(server, a.token, "Patient", "tight");
  await server.api("POST", `/api/tables/${waitingTableId}/join`, { token: a.token, body: { botId: waiter.botId } });
  const runningTableId = (await server.api("POST", "/api/tables", { token: b.token, body: { maxPlayers: 2, maxHands: 100_000, buyIn: 5_000, smallBlind: 1, bigBlind: 2 } })).body.tableId;
  const runningBots = [
    { token: a.token, botId: (await createBot(server, a.token, "Runner A", "caller")).botId },
    { token: b.token, botId: (await createBot(server, b.token, "Runner B", "caller")).botId },
  ];
  for (const { token, botId } of runningBots) await server.api("POST", `/api/tables/${runningTableId}/join`, { token, body: { botId } });
  return { waitingTableId, runningTableId, matchIds, botIds: [hero.botId, villain.botId], tokens: [a.token, b.token], runningBots };
}

/** Ends the long match (every seat leaves). */
export async function stopRunning(server: TestServer, world: WebWorld): Promise<void> {
  for (const { token, botId } of world.runningBots) await server.api("POST", `/api/tables/${world.runningTableId}/leave`, { token, body: { botId } });
}

/** Console errors and uncaught exceptions of a page, collected as they happen. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** A new page of `browser` at `url`, its console errors collected into `errors`; the page must answer 200. */
export async function openPage(browser: Browser, url: string, errors: string[], viewport = { width: 1200, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  errors.push(...collectErrors(page));
  expect((await page.goto(url))!.status()).toBe(200);
  return page;
}

/** Elements (outside tables, which scroll inside their sections) reaching past `width`, and the page's scroll width. */
export async function sidewaysOverflow(page: Page, width: number): Promise<{ wide: string[]; scrollWidth: number }> {
  return page.evaluate((limit) => {
    const document = (globalThis as any).document;
    const wide = [...document.querySelectorAll("body *:not(table *):not(table)")]
      .filter((el: any) => el.getBoundingClientRect().right > limit + 1)
      .slice(0, 3)
      .map((el: any) => `${el.tagName}.${el.className}:${Math.round(el.getBoundingClientRect().right)}`);
    return { wide, scrollWidth: document.documentElement.scrollWidth };
  }, width);
}
