/**
 * `bun run screenshots`: a real server (its own Postgres database) with real matches, every page
 * opened in Debian's chromium, a PNG of each saved under docs/screenshots/ (desktop 1440 px and
 * phone 375 px).
 */
import { join } from "node:path";
import { ROOT } from "../tests/support/process";
import { startTestServer } from "../tests/support/server";
import { launchChromium, populate, stopRunning } from "../tests/web/fixture";

const server = await startTestServer("screenshots", { LEADERBOARD_MIN_MATCHES: "1" });
const browser = await launchChromium();
try {
  const world = await populate(server, 4);
  const pages: Array<[string, string]> = [
    ["lobby", "/"],
    ["table", `/tables/${world.runningTableId}`],
    ["replay", `/matches/${world.matchIds[0]}`],
    ["bot", `/bots/${world.botIds[0]}`],
    ["leaderboard", "/leaderboard"],
  ];
  for (const [name, path] of pages) {
    for (const [suffix, viewport] of [["", { width: 1440, height: 900 }], ["-375", { width: 375, height: 800 }]] as const) {
      const page = await browser.newPage({ viewport });
      await page.goto(`${server.url}${path}`);
      if (name === "replay") {
        await page.waitForSelector("#viewer[data-ready=true]");
        await page.click("#next-showdown");
      }
      if (name === "table") await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#live")?.getAttribute("data-hand")) > 2);
      const file = join(ROOT, "docs/screenshots", `${name}${suffix}.png`);
      await page.screenshot({ path: file, fullPage: suffix === "" });
      console.log(`saved ${file}`);
      await page.close();
    }
  }
  await stopRunning(server, world);
} finally {
  await browser.close();
  await server.close();
}
