/**
 * The web pages' first view (issue 11): JavaScript each page loads (raw and gzipped) and the time
 * until it is interactive in Debian's chromium (DOMContentLoaded; the replay: its hands loaded and
 * drawn; the live table: its first hand drawn; TV: its first frame drawn). Goals: under 100 KB gzipped, under 1 s. Figures only.
 */
import { gzipSync } from "node:zlib";
import { startTestServer } from "../tests/support/server";
import { launchChromium, populate, stopRunning } from "../tests/web/fixture";

const server = await startTestServer("bench_web", { LEADERBOARD_MIN_MATCHES: "1" });
const browser = await launchChromium();
try {
  const world = await populate(server, 4);
  const ready: Record<string, string> = { replay: "#viewer[data-ready=true]", hand: "#viewer[data-ready=true]", table: "#live:not([data-hand='0'])", tv: "#tv:not([data-step='-1'])" };
  const rows = [];
  for (const [name, path] of [["lobby", "/"], ["table", `/tables/${world.runningTableId}`], ["replay", `/matches/${world.matchIds[0]}`], ["hand", `/matches/${world.matchIds[0]}/hands/3`], ["bot", `/bots/${world.botIds[0]}`], ["leaderboard", "/leaderboard"], ["tv", "/tv"], ["login", "/login"]]) {
    const page = await browser.newPage();
    const scripts: Promise<Buffer>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script") scripts.push(response.body());
    });
    const started = performance.now();
    await page.goto(`${server.url}${path}`, { waitUntil: "domcontentloaded" });
    if (ready[name]) await page.waitForSelector(ready[name]);
    const interactiveMs = performance.now() - started;
    const bodies = await Promise.all(scripts);
    rows.push({
      page: name,
      "JS KB": (bodies.reduce((n, b) => n + b.length, 0) / 1024).toFixed(1),
      "JS KB gzipped": (bodies.reduce((n, b) => n + gzipSync(b).length, 0) / 1024).toFixed(1),
      "interactive ms": interactiveMs.toFixed(0),
    });
    await page.close();
  }
  console.table(rows);
  await stopRunning(server, world);
} finally {
  await browser.close();
  await server.close();
}
