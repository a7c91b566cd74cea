/**
 * `bun run screenshots`: a real server (its own Postgres database) with real matches, every page
 * opened in Debian's chromium, a PNG of each saved under docs/screenshots/ (desktop 1440 px and
 * phone 375 px).
 */
import { join } from "node:path";
import { ROOT } from "../tests/support/process";
import { registeredDeveloper } from "../tests/support/developers";
import { createBot, startTestServer } from "../tests/support/server";
import { launchChromium, populate, stopRunning } from "../tests/web/fixture";

const server = await startTestServer("screenshots", { LEADERBOARD_MIN_MATCHES: "1" });
const PASSWORD = "a long password";
const browser = await launchChromium();
try {
  const world = await populate(server, 4);
  // A developer to sign in as: funded, a built-in and a hosted bot (its code uploaded through the API).
  const dev = await registeredDeveloper(server.api, { label: "screens", password: PASSWORD });
  await server.api("POST", "/api/me/balance/faucet", { token: dev.token });
  await createBot(server, dev.token, "Steady Caller", "caller");
  const hosted = (await createBot(server, dev.token, "My Hosted Bot")).botId;
  const upload = await fetch(`${server.url}/api/bots/${hosted}/code`, { method: "PUT", headers: { authorization: `Bearer ${dev.token}`, "content-type": "text/typescript" }, body: await Bun.file(join(ROOT, "examples/starter-bot.ts")).text() });
  if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  const pages: Array<[string, string]> = [
    ["login", "/login"],
    ["me", "/me"],
    ["hosted", `/me/bots/${hosted}`],
    ["hand", `/matches/${world.matchIds[0]}/hands/3`],
    ["tv", "/tv"],
    ["lobby", "/"],
    ["table", `/tables/${world.runningTableId}`],
    ["replay", `/matches/${world.matchIds[0]}`],
    ["bot", `/bots/${world.botIds[0]}`],
    ["leaderboard", "/leaderboard"],
  ];
  for (const [name, path] of pages) {
    for (const [suffix, viewport] of [["", { width: 1440, height: 900 }], ["-375", { width: 375, height: 800 }]] as const) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      if (path.startsWith("/me")) {
        await page.goto(`${server.url}/login`);
        await page.fill("#login-form input[name=email]", dev.email);
        await page.fill("#login-form input[name=password]", PASSWORD);
        await Promise.all([page.waitForURL(`${server.url}/me`), page.click("#login-form button[type=submit]")]);
      }
      await page.goto(`${server.url}${path}`);
      if (name === "hand") await page.waitForSelector("#viewer[data-ready=true]");
      if (name === "tv") await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#tv")?.dataset.frame) >= 3);
      if (name === "replay") {
        await page.waitForSelector("#viewer[data-ready=true]");
        await page.click("#next-showdown");
      }
      if (name === "table") await page.waitForFunction(() => Number((globalThis as any).document.querySelector("#live")?.getAttribute("data-hand")) > 2);
      const file = join(ROOT, "docs/screenshots", `${name}${suffix}.png`);
      await page.screenshot({ path: file, fullPage: suffix === "" });
      console.log(`saved ${file}`);
      await context.close();
    }
  }
  await stopRunning(server, world);
} finally {
  await browser.close();
  await server.close();
}
