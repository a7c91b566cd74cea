import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../support/server";
import { collectErrors, launchChromium, populate, sidewaysOverflow, stopRunning, type WebWorld } from "./fixture";

setDefaultTimeout(60_000);

let server: TestServer;
let browser: Browser;
let world: WebWorld;
const consoleErrors: string[] = [];

beforeAll(async () => {
  server = await startTestServer("web_pages", { LEADERBOARD_MIN_MATCHES: "1" });
  [browser, world] = await Promise.all([launchChromium(), populate(server)]);
});
afterAll(async () => {
  await stopRunning(server, world);
  await browser.close();
  await server.close();
});

async function open(path: string, viewport = { width: 1440, height: 900 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  const errors = collectErrors(page);
  page.on("close", () => consoleErrors.push(...errors.map((e) => `${path}: ${e}`)));
  const response = await page.goto(`${server.url}${path}`);
  expect(response!.status()).toBe(200);
  expect(response!.headers()["content-type"]).toContain("text/html");
  return page;
}

describe("the web pages, in a real browser", () => {
  test("the lobby lists the waiting table, the latest matches and the top of the leaderboard, with links", async () => {
    const page = await open("/");
    const tableLink = page.locator(`a[href="/tables/${world.waitingTableId}"]`);
    expect(await tableLink.count()).toBe(1);
    expect(await page.locator(`a[href="/matches/${world.matchIds[0]}"]`).count()).toBe(1);
    expect(await page.locator(`#net-chips a[href^="/bots/"]`).count()).toBeGreaterThan(0);
    // Ladder matches are told apart from private ones: these were private tables.
    expect(await page.locator(`section:has(#matches-title) [data-kind="private"]`).count()).toBe(world.matchIds.length);
    await tableLink.click();
    await page.waitForURL(`**/tables/${world.waitingTableId}`);
    await page.close();
  });

  test("the live page shows a running match move, over the spectator socket", async () => {
    const page = await open(`/tables/${world.runningTableId}`);
    const handShown = () => page.locator("#live").getAttribute("data-hand").then(Number);
    await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#live")?.getAttribute("data-hand")) > 0);
    const first = await handShown();
    await page.waitForFunction((n) => Number((globalThis as any).document.querySelector("#live")?.getAttribute("data-hand")) > n, first);
    expect(await handShown()).toBeGreaterThan(first);
    expect(await page.locator("#table .seat").count()).toBe(2);
    // Hole cards are never on the live page before a showdown: only shown-down cards (from hand_ended) may appear.
    await page.close();
  });

  test("the replay steps to a showdown and shows exactly the cards the hand history shows; keys move it", async () => {
    const matchId = world.matchIds[0];
    const history = (await server.api("GET", `/api/matches/${matchId}/hands?limit=1000`)).body.hands as any[];
    const page = await open(`/matches/${matchId}`);
    await page.waitForSelector("#viewer[data-ready=true]");
    const showdown = history.find((h) => h.events.some((e: any) => e.type === "show"));
    expect(showdown).toBeDefined();
    // To the first showdown hand (its last step), as a user would: ↓ through the hands, then to the end of the hand.
    const handShown = async () => Number(await page.locator("#viewer").getAttribute("data-hand"));
    for (let presses = 0; presses < history.length && (await handShown()) < showdown.handNumber; presses++) await page.keyboard.press("ArrowDown");
    expect(Number(await page.locator("#viewer").getAttribute("data-hand"))).toBe(showdown.handNumber);
    const steps = showdown.events.length;
    for (let i = 0; i < steps; i++) await page.keyboard.press("ArrowRight");
    expect(Number(await page.locator("#viewer").getAttribute("data-step"))).toBe(steps);
    for (const shown of showdown.events.filter((e: any) => e.type === "show")) {
      const cards = await page.locator(`#table .seat[data-seat="${shown.seat}"] .card[data-card]`).evaluateAll((els) => els.map((el) => el.getAttribute("data-card")));
      expect(cards).toEqual(shown.cards);
    }
    const board = await page.locator("#table .board .card[data-card]").evaluateAll((els) => els.map((el) => el.getAttribute("data-card")));
    expect(board).toEqual(showdown.board);
    // Nothing that was not shown down: every face-up card on the table is a shown or board card of this hand.
    const visible = await page.locator("#table .card[data-card]").evaluateAll((els) => els.map((el) => el.getAttribute("data-card")));
    const publicCards = new Set([...showdown.board, ...showdown.events.filter((e: any) => e.type === "show" || (e.type === "hole_cards" && e.cards)).flatMap((e: any) => e.cards)]);
    expect(visible.every((card) => publicCards.has(card))).toBe(true);
    await page.keyboard.press("ArrowLeft");
    expect(Number(await page.locator("#viewer").getAttribute("data-step"))).toBe(steps - 1);
    expect(await page.locator("#chart svg polyline").count()).toBe(2);
    expect(await page.locator(`a[href="/api/matches/${matchId}/hands?format=phh"]`).count()).toBe(1);
    await page.close();
  });

  test("a hand's own page opens the replay at that hand; the link follows the replay and is there to copy", async () => {
    const matchId = world.matchIds[1];
    const page = await open(`/matches/${matchId}/hands/3`);
    await page.waitForSelector("#viewer[data-ready=true]");
    expect(await page.locator("#viewer").getAttribute("data-hand")).toBe("3");
    expect(await page.locator("h1").textContent()).toContain("Hand 3");
    expect(await page.locator("#hand-link").getAttribute("href")).toBe(`/matches/${matchId}/hands/3`);
    await page.keyboard.press("ArrowDown");
    expect(await page.locator("#hand-link").getAttribute("href")).toBe(`/matches/${matchId}/hands/4`);
    expect(new URL(page.url()).pathname).toBe(`/matches/${matchId}/hands/4`);
    expect(await page.locator("#hand-link").textContent()).toBe(`${server.url}/matches/${matchId}/hands/4`);
    await page.close();
    // The whole match's replay links each hand it shows to its page (the address bar stays the match's).
    const replay = await open(`/matches/${matchId}`);
    await replay.waitForSelector("#viewer[data-ready=true]");
    await replay.keyboard.press("ArrowDown");
    expect(await replay.locator("#hand-link").getAttribute("href")).toBe(`/matches/${matchId}/hands/2`);
    expect(new URL(replay.url()).pathname).toBe(`/matches/${matchId}`);
    await replay.close();
    let checked = 0;
    for (const path of [`/matches/${matchId}/hands/0`, `/matches/${matchId}/hands/99999`, `/matches/${matchId}/hands/x`, `/matches/m_nope/hands/1`]) {
      const response = await fetch(`${server.url}${path}`);
      expect([path, response.status, response.headers.get("content-type")]).toEqual([path, 404, "text/html; charset=utf-8"]);
      checked += 1;
    }
    expect(checked).toBe(4);
  });

  test("the bot page shows GET /api/stats/:botId's figures and its recent matches", async () => {
    const botId = world.botIds[0];
    const stats = (await server.api("GET", `/api/stats/${botId}`)).body;
    const page = await open(`/bots/${botId}`);
    for (const key of ["matchesPlayed", "matchesWon", "handsPlayed", "handsWon", "totalBuyIns", "totalWinnings", "netChips", "biggestWin", "biggestLoss"]) {
      expect(await page.locator(`[data-stat="${key}"]`).textContent()).toBe(String(stats[key]));
    }
    // The win rate as the chips say and adjusted, each with its interval, side by side.
    const rating = (await server.api("GET", `/api/ratings/${botId}`)).body;
    const shown = (rate: number, ci: [number, number]) => `${rate.toFixed(1)} (${ci[0].toFixed(1)} … ${ci[1].toFixed(1)})`;
    expect(await page.locator(`[data-stat="bbPer100"]`).textContent()).toBe(shown(rating.bbPer100, rating.bbPer100Ci95));
    expect(await page.locator(`[data-stat="bbPer100Adjusted"]`).textContent()).toBe(shown(rating.bbPer100Adjusted, rating.bbPer100AdjustedCi95));
    expect(await page.locator(`[data-stat="estimator"]`).textContent()).toBe(rating.estimator);
    expect(rating.estimator).toBe("aivat-2");
    expect(await page.locator(`a[href="/matches/${world.matchIds[0]}"]`).count()).toBe(1);
    expect(await page.locator("#net-chart svg polyline").count()).toBe(1);
    await page.close();
  });

  test("the bot page charts its rating over time beside its net chips, with labelled axes, and its results by opponent", async () => {
    const [hero, villain] = world.botIds;
    const rating = (await server.api("GET", `/api/ratings/${hero}`)).body;
    const page = await open(`/bots/${hero}`);
    // One point per rated match, a band around it; the axes carry values and match numbers with dates.
    const points = (await page.locator("#rating-chart svg polyline").getAttribute("points"))!.split(" ");
    expect(points.length).toBe(rating.matchesPlayed);
    expect(await page.locator("#rating-chart svg polygon.band").count()).toBe(1);
    for (const chart of ["#rating-chart", "#net-chart"]) {
      const xTicks = await page.locator(`${chart} text.tick.x`).allTextContents();
      expect(xTicks.length).toBeGreaterThanOrEqual(2);
      expect(xTicks[xTicks.length - 1]).toMatch(/^#\d+ \(\d\d-\d\d\)$/);
      expect(await page.locator(`${chart} text.tick.y`).count()).toBeGreaterThanOrEqual(3);
      expect(await page.locator(`${chart} text.axis-label`).count()).toBe(2);
      // The legend's entries stay on one line each.
      const heights = await page.locator(`${chart} ul.legend li`).evaluateAll((lis) => lis.map((li) => li.getBoundingClientRect().height));
      expect(heights.length).toBe(1);
      expect(heights[0]).toBeLessThan(30);
    }
    // Its only opponent: the by-opponent figures are its overall rated figures.
    const rows = await page.locator("#by-opponent tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-opponent"), tr.children[1].textContent, tr.querySelector("[data-rate=raw]")!.textContent, tr.querySelector("[data-rate=adjusted]")!.textContent]));
    const shown = (rate: number, ci: [number, number]) => `${rate.toFixed(1)} (${ci[0].toFixed(1)} … ${ci[1].toFixed(1)})`;
    expect(rows).toEqual([[villain, String(rating.matchesPlayed), shown(rating.bbPer100, rating.bbPer100Ci95), shown(rating.bbPer100Adjusted, rating.bbPer100AdjustedCi95)]]);
    expect(await page.locator("#by-opponent th").first().textContent()).toBe("Opponent");
    // Private tables between two developers: told apart from ladder matches, and rated.
    const kinds = await page.locator("section:has(#matches-title) tbody tr [data-kind]").evaluateAll((els) => els.map((el) => el.getAttribute("data-kind")));
    expect(kinds).toEqual(world.matchIds.map(() => "private"));
    await page.close();
  });

  test("the leaderboard shows GET /api/stats in its order, and the ratings", async () => {
    const board = (await server.api("GET", "/api/stats?limit=100")).body as Array<{ botId: string; netChips: number }>;
    const page = await open("/leaderboard");
    const rows = await page.locator("#net-chips tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-bot"), tr.children[2].textContent]));
    expect(rows).toEqual(board.map((e) => [e.botId, e.netChips > 0 ? `+${e.netChips}` : String(e.netChips)]));
    const ratings = (await server.api("GET", "/api/ratings")).body as Array<{ botId: string }>;
    const rated = await page.locator("#ratings tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-bot")));
    expect(rated).toEqual(ratings.map((r) => r.botId));
    await page.close();
  });

  test("at 375 px wide nothing overflows the page sideways", async () => {
    for (const path of ["/", `/matches/${world.matchIds[0]}`, `/matches/${world.matchIds[0]}/hands/2`, `/bots/${world.botIds[0]}`, "/leaderboard", `/tables/${world.runningTableId}`, "/login"]) {
      const page = await open(path, { width: 375, height: 800 });
      await page.waitForLoadState("networkidle").catch(() => {});
      const { wide, scrollWidth } = await sidewaysOverflow(page, 375);
      expect([path, wide]).toEqual([path, []]);
      expect(scrollWidth).toBeLessThanOrEqual(375);
      await page.close();
    }
  });

  test("unknown ids are an HTML 404 page; the JSON API keeps its SPEC §8 errors; /swagger stays", async () => {
    for (const path of ["/matches/m_nope", "/bots/bot_nope", "/tables/tbl_nope"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("text/html");
      expect(await response.text()).toContain("Not found");
    }
    const page = await fetch(`${server.url}/no/such/page`, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect([page.status, page.headers.get("content-type")]).toEqual([404, "text/html; charset=utf-8"]);
    const route = await fetch(`${server.url}/api/no/such/route`, { headers: { accept: "text/html" } });
    expect([route.status, ((await route.json()) as any).error.code]).toEqual([404, "NOT_FOUND"]);
    const api = await fetch(`${server.url}/api/matches/m_nope`);
    expect([api.status, ((await api.json()) as any).error.code]).toEqual([404, "NOT_FOUND"]);
    expect((await fetch(`${server.url}/swagger`)).status).toBe(200);
  });

  test("Swagger UI works under the Content-Security-Policy: it lists the operations and a try-it-out call gets its answer", async () => {
    const page = await open("/swagger");
    await page.waitForSelector(".opblock");
    expect(await page.locator(".opblock").count()).toBeGreaterThan(20);
    const health = page.locator("#operations-health-getHealth");
    await health.locator(".opblock-summary").click();
    await health.locator("button.try-out__btn").click();
    await health.locator("button.execute").click();
    await health.locator(".live-responses-table tr.response .response-col_status").first().waitFor();
    expect((await health.locator(".live-responses-table tr.response .response-col_status").first().textContent())?.trim()).toBe("200");
    await page.close();
  });

  test("every page and /swagger carry the security headers, and no other site can frame them", async () => {
    let checked = 0;
    for (const path of ["/", "/leaderboard", `/matches/${world.matchIds[0]}`, `/matches/${world.matchIds[0]}/hands/1`, `/tables/${world.runningTableId}`, "/tv", "/login", "/me", "/swagger", "/swagger/assets/swagger-init.js", "/api/bots"]) {
      const headers = (await fetch(`${server.url}${path}`)).headers;
      const csp = headers.get("content-security-policy") ?? "";
      expect({ path, csp: csp.split("; ").filter((d) => ["script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"].includes(d)).length }).toEqual({ path, csp: 3 });
      expect(csp).not.toContain("unsafe-inline");
      expect([headers.get("x-frame-options"), headers.get("x-content-type-options"), headers.get("referrer-policy")]).toEqual(["DENY", "nosniff", "strict-origin-when-cross-origin"]);
      checked += 1;
    }
    expect(checked).toBe(11);
    // A page elsewhere (here: about:blank) that frames /swagger gets an empty frame and a refusal.
    const framing = await browser.newPage();
    const refusal = framing.waitForEvent("console", { predicate: (message) => /frame-ancestors|X-Frame-Options/i.test(message.text()), timeout: 20_000 });
    await framing.setContent(`<iframe src="${server.url}/swagger"></iframe>`);
    expect((await refusal).text()).toMatch(/frame-ancestors|X-Frame-Options/i);
    const framed = framing.frames().find((frame) => frame.url().includes("/swagger"));
    expect(framed ? await framed.locator(".swagger-ui, #swagger-ui").count() : 0).toBe(0);
    await framing.close();
  });

  test("no page wrote a console error", () => {
    expect(consoleErrors).toEqual([]);
  });
});
