/**
 * /tournaments and a tournament's page in a real browser: the lists by status, a finished round
 * robin's standings and crosstable heat map as GET /api/tournaments/:id gives them, a sit-and-go's
 * entries, blinds and final places; no console error (a CSP violation is one).
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { launchChromium, openPage } from "./fixture";

setDefaultTimeout(90_000);

let server: TestServer;
let browser: Browser;
const errors: string[] = [];
let roundRobin: any;
let sitAndGo: any;
let upcoming: string;

async function finished(id: string) {
  return until(async () => {
    const read = (await server.api("GET", `/api/tournaments/${id}`)).body;
    return read.status === "finished" ? read : null;
  }, 60_000, `tournament ${id} to finish`);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer("web_tournaments", { COMPETITIONS_TICK_MS: "50" }), launchChromium()]);
  const creator = await registerWithCredits(server, "web-creator");
  const players = await Promise.all(
    ["caller", "raiser", "tight"].map(async (strategy, i) => {
      const dev = await registerWithCredits(server, `web-t${i}`);
      return { ...dev, botId: (await createBot(server, dev.token, `<b>${strategy}</b>`, strategy)).botId };
    }),
  );
  const rr = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "round-robin", matchesPerPair: 2, handsPerMatch: 10, buyIn: 300, smallBlind: 5, bigBlind: 10 } })).body;
  for (const p of players) expect((await server.api("POST", `/api/tournaments/${rr.tournamentId}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
  expect((await server.api("POST", `/api/tournaments/${rr.tournamentId}/start`, { token: creator.token })).status).toBe(200);
  roundRobin = await finished(rr.tournamentId);
  const sng = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "sit-and-go", seats: 3, buyIn: 200, blindLevels: [{ hands: 3, smallBlind: 10, bigBlind: 20 }, { hands: 1, smallBlind: 50, bigBlind: 100 }] } })).body;
  for (const p of players) expect((await server.api("POST", `/api/tournaments/${sng.tournamentId}/entries`, { token: p.token, body: { botId: p.botId } })).status).toBe(201);
  sitAndGo = await finished(sng.tournamentId);
  upcoming = (await server.api("POST", "/api/tournaments", { token: creator.token, body: { kind: "sit-and-go", seats: 4, buyIn: 100 } })).body.tournamentId;
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const open = (path: string): Promise<Page> => openPage(browser, `${server.url}${path}`, errors);

test("/tournaments lists upcoming, running and finished events", async () => {
  const page = await open("/tournaments");
  const ids = async (section: string) => page.locator(`section[aria-labelledby="t-${section}"] li`).evaluateAll((lis) => lis.map((li) => li.getAttribute("data-tournament")));
  expect(await ids("registering")).toContain(upcoming);
  expect(new Set(await ids("finished"))).toEqual(new Set([roundRobin.tournamentId, sitAndGo.tournamentId]));
  expect(await page.locator("header nav a[href='/tournaments']").count()).toBe(1);
  await page.close();
});

test("a finished round robin: standings and a crosstable heat map as the API gives them", async () => {
  const page = await open(`/tournaments/${roundRobin.tournamentId}`);
  const rows = await page.locator("#standings tbody tr").evaluateAll((trs) => trs.map((tr) => ({ botId: tr.getAttribute("data-bot"), points: Number(tr.querySelector("[data-points]")?.textContent) })));
  expect(rows).toEqual(roundRobin.standings.map((s: any) => ({ botId: s.botId, points: s.points })));
  const cells = await page.locator("#crosstable td[data-pair]").evaluateAll((tds) => tds.map((td) => ({ pair: td.getAttribute("data-pair"), heat: [...td.classList].find((c) => c.startsWith("heat-")) ?? null, text: td.textContent })));
  expect(cells.length).toBe(6);
  for (const cell of cells) {
    const [botId, opponentBotId] = cell.pair!.split("|");
    const api = roundRobin.crosstable.find((c: any) => c.botId === botId && c.opponentBotId === opponentBotId);
    expect(cell.heat).toBe(api.bbPer100 === null ? null : `heat-${api.bbPer100 >= 0 ? "win" : "loss"}-${Math.min(5, 1 + Math.floor(Math.abs(api.bbPer100) / 20))}`);
    if (api.ci95) expect(cell.text).toContain("…");
  }
  // Bot names are text, never markup.
  expect(await page.locator("#standings b").count()).toBe(0);
  expect(await page.locator("#standings a", { hasText: "<b>caller</b>" }).count()).toBe(1);
  expect(await page.locator("table.schedule tbody tr").count()).toBe(6);
  await page.close();
});

test("a finished sit-and-go: entries, its blinds and its final places", async () => {
  const page = await open(`/tournaments/${sitAndGo.tournamentId}`);
  const places = await page.locator("#places tbody tr").evaluateAll((trs) => trs.map((tr) => ({ botId: tr.getAttribute("data-bot"), cells: [...tr.querySelectorAll("td")].map((td) => td.textContent) })));
  expect(places.map((p) => p.botId)).toEqual(sitAndGo.places.map((p: any) => p.botId));
  expect(places.map((p) => Number(p.cells[2]))).toEqual(sitAndGo.places.map((p: any) => p.cashout));
  expect(await page.locator("section[aria-labelledby='levels-title'] li").count()).toBe(2);
  expect(await page.locator("[data-status='finished']").count()).toBe(1);
  await page.close();
  expect((await (await fetch(`${server.url}/tournaments/trn_nope`)).status)).toBe(404);
  expect(errors).toEqual([]);
});
