/**
 * Issue 39: a developer signs in on the web, sees their account, uploads code, and signs out; the
 * session cookie's flags, cross-site refusals and another developer's bot, in a real browser.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { cameOverHttps, parseTrustProxy } from "../../src/lib/client-address";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db";
import { sha256Hex } from "../../src/lib/ids";
import { auditLedger } from "../../src/modules/credits/audit";
import { localPath } from "../../src/modules/web/browser-guard";
import { WebSessions } from "../../src/modules/web/sessions";
import { hostedLogs } from "../../src/db/schema";
import { registeredDeveloper } from "../support/developers";
import { until } from "../support/nodes";
import { WsBot } from "../support/ws-bot";
import { createBot, startTestServer, type TestServer } from "../support/server";
import { collectErrors, launchChromium, sidewaysOverflow } from "./fixture";

setDefaultTimeout(60_000);

const PASSWORD = "a long password";
let server: TestServer;
let browser: Browser;
const consoleErrors: string[] = [];
let ada: { developerId: string; token: string; email: string };
let bob: { developerId: string; token: string; email: string };
let socketBotId: string;
let builtInBotId: string;
let bobBotId: string;
let bobBotKey: string;
let ladderBotId: string;

beforeAll(async () => {
  // TRUST_PROXY names the loopback address: a forwarded https from it counts, from anyone else it does not.
  server = await startTestServer("web_account", { TRUST_PROXY: "127.0.0.1", AUTH_RATE_LIMIT_PER_MINUTE: "60" });
  browser = await launchChromium();
  ada = await registeredDeveloper(server.api, { label: "ada", password: PASSWORD });
  bob = await registeredDeveloper(server.api, { label: "bob", password: PASSWORD });
  expect((await server.api("POST", "/api/me/balance/faucet", { token: ada.token })).status).toBe(200);
  builtInBotId = (await createBot(server, ada.token, "Ada Caller", "caller")).botId;
  socketBotId = (await createBot(server, ada.token, "Ada Socket")).botId;
  ({ botId: bobBotId, apiKey: bobBotKey } = await createBot(server, bob.token, "Bob Socket"));
  // On the ladder and never connected: its entry is paused, and /me says why and what to do.
  ladderBotId = (await createBot(server, ada.token, "Ada Ladder")).botId;
  expect((await server.api("POST", "/api/ladder/entries", { token: ada.token, body: { botId: ladderBotId } })).status).toBe(201);
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

/** `refusals`: the 4xx documents this test opens on purpose, which chromium reports as console errors ("Failed to load resource"). */
async function newContext(refusals: number[] = []): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const expected = refusals.map((status) => `Failed to load resource: the server responded with a status of ${status} (${STATUS_TEXT[status]})`);
  context.on("close", () => {
    for (const message of expected) {
      const at = errors.indexOf(message);
      expect(at).toBeGreaterThanOrEqual(0);
      errors.splice(at, 1);
    }
    consoleErrors.push(...errors);
  });
  return { context, page };
}
const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden" };

/** Signs in through the form, as a person would: the signed-out /me sends the browser to /login and back. */
async function signIn(page: Page, who: { email: string }): Promise<void> {
  await page.goto(`${server.url}/me`);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/login?next=%2Fme");
  await page.fill("#login-form input[name=email]", who.email);
  await page.fill("#login-form input[name=password]", PASSWORD);
  await Promise.all([page.waitForURL(`${server.url}/me`), page.click("#login-form button[type=submit]")]);
}

const csrfOf = (page: Page) => page.locator("#sign-out").locator("xpath=..").locator("input[name=csrf]").getAttribute("value");
const sessionCookieOf = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === "pbs_session");

describe("signing in on the web", () => {
  test("a signed-out /me goes to /login; signing in comes back to /me with the balance, the bots and the faucet transaction", async () => {
    const { context, page } = await newContext();
    await signIn(page, ada);
    const balance = (await server.api("GET", "/api/me/balance", { token: ada.token })).body.balance;
    expect(Number(await page.locator("#balance").textContent())).toBe(balance);
    const rows = await page.locator("#my-bots tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-bot"), tr.querySelector("[data-plays]")!.getAttribute("data-plays")]));
    expect(rows).toEqual([
      [builtInBotId, "built-in"],
      [socketBotId, "socket"],
      [ladderBotId, "socket"],
    ]);
    expect(await page.locator(`#my-bots tr[data-bot="${socketBotId}"] [data-connected="false"]`).count()).toBe(1);
    const entry = await page.locator(`#my-bots tr[data-bot="${ladderBotId}"] li[data-format="heads-up"]`).textContent();
    expect(entry).toStartWith("heads-up: paused (BOT_OFFLINE): the bot is not connected: run it");
    expect(await page.locator(`#my-bots tr[data-bot="${socketBotId}"]`).textContent()).toContain("not on the ladder");
    const faucetRows = await page.locator(`#transactions tr[data-type="faucet"] td.num`).allTextContents();
    expect(faucetRows).toEqual([`+${balance}`, String(balance)]);
    // Claimed already today: the page says when the faucet opens again, with no button.
    expect(await page.locator("#claim-faucet").count()).toBe(0);
    expect(await page.locator("#faucet-next time").count()).toBe(1);
    const cookie = await sessionCookieOf(context);
    expect(cookie).toBeDefined();
    expect([cookie!.httpOnly, cookie!.sameSite, cookie!.secure]).toEqual([true, "Strict", false]);
    expect(cookie!.expires).toBeGreaterThan(Date.now() / 1000 + 3600);
    // Stored as its SHA-256 only: the database holds nothing a browser could send.
    const stored = await queryRows<{ token_hash: string }>(server.database.db, sql`select token_hash from web_sessions where developer_id = ${ada.developerId}`);
    expect(stored.map((row) => row.token_hash)).toContain(sha256Hex(cookie!.value));
    expect(stored.some((row) => row.token_hash === cookie!.value)).toBe(false);
    // The page's script-free CSP is the same as every other page's.
    const csp = (await fetch(`${server.url}/login`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    await context.close();
  });

  test("the faucet claimed from /me is the API's claim; another developer's /me shows only theirs", async () => {
    const { context, page } = await newContext();
    await signIn(page, bob);
    expect(Number(await page.locator("#balance").textContent())).toBe(0);
    expect(await page.locator("#my-bots tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-bot")))).toEqual([bobBotId]);
    await Promise.all([page.waitForURL(`${server.url}/me?notice=claimed`), page.click("#claim-faucet")]);
    const balance = (await server.api("GET", "/api/me/balance", { token: bob.token })).body.balance;
    expect(balance).toBeGreaterThan(0);
    expect(Number(await page.locator("#balance").textContent())).toBe(balance);
    expect(await page.locator(`#transactions tr[data-type="faucet"]`).count()).toBe(1);
    await context.close();
  });

  test("signing out ends the session: the old cookie opens nothing, on any tab", async () => {
    const { context, page } = await newContext();
    await signIn(page, ada);
    const cookie = (await sessionCookieOf(context))!;
    const other = await context.newPage();
    await other.goto(`${server.url}/me`);
    expect(new URL(other.url()).pathname).toBe("/me");
    await Promise.all([page.waitForURL(`${server.url}/`), page.click("#sign-out")]);
    expect(await sessionCookieOf(context)).toBeUndefined();
    // The cookie's value, replayed after sign-out (as a stolen copy would be), is refused: revoked server-side.
    const replay = await fetch(`${server.url}/me`, { headers: { cookie: `pbs_session=${cookie.value}` }, redirect: "manual" });
    expect([replay.status, replay.headers.get("location")]).toEqual([303, "/login?next=%2Fme"]);
    await other.reload();
    expect(new URL(other.url()).pathname).toBe("/login");
    await context.close();
  });

  test("a wrong password is a 401 page that says so; the cookie never authenticates /api/**", async () => {
    const { context, page } = await newContext([401]);
    await page.goto(`${server.url}/login`);
    await page.fill("#login-form input[name=email]", ada.email);
    await page.fill("#login-form input[name=password]", "not the password");
    const [response] = await Promise.all([page.waitForResponse((r) => r.url() === `${server.url}/login` && r.request().method() === "POST"), page.click("#login-form button[type=submit]")]);
    expect(response.status()).toBe(401);
    expect(await page.locator("#alert").textContent()).toBe("Wrong email or password.");
    await signIn(page, ada);
    const cookie = (await sessionCookieOf(context))!;
    const api = await fetch(`${server.url}/api/me`, { headers: { cookie: `pbs_session=${cookie.value}` } });
    expect([api.status, ((await api.json()) as any).error.code]).toEqual([401, "UNAUTHORIZED"]);
    await context.close();
  });

  test("registering from the same page signs the new developer in", async () => {
    const { context, page } = await newContext();
    await page.goto(`${server.url}/login`);
    const email = `new-${Date.now()}@example.com`;
    await page.fill("#register-form input[name=email]", email);
    await page.fill("#register-form input[name=password]", PASSWORD);
    await page.fill("#register-form input[name=name]", "Newcomer");
    await Promise.all([page.waitForURL(`${server.url}/me?notice=welcome`), page.click("#register-form button[type=submit]")]);
    expect(await page.locator("h1").textContent()).toContain(email);
    expect(await page.locator("#balance").textContent()).toBe("0");
    expect((await server.api("POST", "/api/auth/login", { body: { email, password: PASSWORD } })).status).toBe(200);
    await context.close();
  });
});

test("a session ends at its expiry, and at sign-out, whatever the cookie says", async () => {
  let now = Date.now();
  const sessions = new WebSessions(server.database.db, { now: () => now }, 3600);
  const expiring = await sessions.create(ada.developerId);
  const revoked = await sessions.create(ada.developerId);
  expect((await sessions.resolve(expiring.token))?.developerId).toBe(ada.developerId);
  await sessions.revoke(revoked.token);
  expect(await sessions.resolve(revoked.token)).toBeNull();
  now += 3600_000 + 1;
  expect(await sessions.resolve(expiring.token)).toBeNull();
  expect(await sessions.resolve("pbs_made-up")).toBeNull();
});

describe("cross-site requests and redirects", () => {
  test("a form post without the session's token, or from another site, is refused and changes nothing", async () => {
    const { context, page } = await newContext();
    await signIn(page, bob);
    const cookie = `pbs_session=${(await sessionCookieOf(context))!.value}`;
    const csrf = (await csrfOf(page))!;
    const before = (await server.api("GET", "/api/me/balance", { token: bob.token })).body.balance;
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers }, body });
    const refusals = [
      await post("/me/faucet", ""),
      await post("/me/faucet", "csrf=forged"),
      await post("/me/faucet", `csrf=${csrf}`, { origin: "https://evil.example" }),
      await post("/me/faucet", `csrf=${csrf}`, { "sec-fetch-site": "cross-site" }),
      await post("/logout", "csrf=forged"),
      await post("/login", `csrf=x&email=${encodeURIComponent(bob.email)}&password=${encodeURIComponent(PASSWORD)}`, { cookie: "pbs_login_csrf=y" }),
    ];
    const answers = await Promise.all(refusals.map(async (r) => [r.status, ((await r.json()) as any).error.code]));
    expect(answers).toEqual(Array.from({ length: 6 }, () => [403, "FORBIDDEN"]));
    expect((await server.api("GET", "/api/me/balance", { token: bob.token })).body.balance).toBe(before);
    // The session survived the forged sign-out.
    expect((await fetch(`${server.url}/me`, { headers: { cookie }, redirect: "manual" })).status).toBe(200);
    await context.close();
  });

  test("the pages' form bodies are bounded and checked like the API's: NUL refused, too large refused, nothing stored", async () => {
    const form = (body: string) => fetch(`${server.url}/register`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    const nul = await form("csrf=x&email=a%00b%40example.com&password=a+long+password");
    expect([nul.status, ((await nul.json()) as any).error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const huge = await form(`csrf=x&email=big%40example.com&password=${"p".repeat(70_000)}`);
    expect([huge.status, ((await huge.json()) as any).error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect((await server.api("POST", "/api/auth/login", { body: { email: "big@example.com", password: "p".repeat(128) } })).status).toBe(401);
  });

  test("after sign-in the browser goes back to a local path only (no open redirect)", async () => {
    expect(["/me", "/bots/bot_1?x=1", "//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "/%2F/evil", " /me", ""].map(localPath)).toEqual([
      "/me",
      "/bots/bot_1?x=1",
      "/me",
      "/me",
      "/me",
      "/me",
      "/%2F/evil",
      "/me",
      "/me",
    ]);
    const { context, page } = await newContext();
    await page.goto(`${server.url}/login?next=${encodeURIComponent("//evil.example/steal")}`);
    await page.fill("#login-form input[name=email]", ada.email);
    await page.fill("#login-form input[name=password]", PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/me`), page.click("#login-form button[type=submit]")]);
    await context.close();
  });

  test("Secure is set when the request came over https through a trusted proxy, never on a client's own word", async () => {
    const login = await fetch(`${server.url}/login`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await login.text())![1];
    const signInWith = (headers: Record<string, string>) =>
      fetch(`${server.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: `pbs_login_csrf=${csrf}`, ...headers },
        body: `csrf=${csrf}&email=${encodeURIComponent(ada.email)}&password=${encodeURIComponent(PASSWORD)}`,
      });
    const viaProxy = (await signInWith({ "x-forwarded-proto": "https" })).headers.getSetCookie().find((c) => c.startsWith("pbs_session="))!;
    const direct = (await signInWith({})).headers.getSetCookie().find((c) => c.startsWith("pbs_session="))!;
    expect(viaProxy).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    expect(direct).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    // The same header from a peer that is not a configured proxy is not believed.
    const trust = parseTrustProxy("127.0.0.1");
    expect([cameOverHttps("http://h/login", "127.0.0.1", "https", trust), cameOverHttps("http://h/login", "10.9.9.9", "https", trust), cameOverHttps("http://h/login", "127.0.0.1", "https", parseTrustProxy(""))]).toEqual([true, false, false]);
  });

  test("the form's sign-ins draw on the API's sign-in budget for the address", async () => {
    const apiAttempt = () => fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: ada.email, password: "wrong password" }) });
    // The address's budget as its last take left it (only a take writes the row: its tokens then, and when).
    const bucketOf = async (key: string) => (await queryRows<{ tokens: number; at_ms: string }>(server.database.db, sql`select tokens, at_ms::text from rate_buckets where key = ${key}`))[0];
    expect((await apiAttempt()).status).toBe(401);
    const [{ key }] = await queryRows<{ key: string }>(server.database.db, sql`select key from rate_buckets where key like 'auth:%' order by at_ms desc limit 1`);
    const before = await bucketOf(key);
    const { context, page } = await newContext();
    await signIn(page, ada);
    await context.close();
    const after = await bucketOf(key);
    // The form's sign-in took one token from the same bucket: whatever time passed (it refills at 60 a minute, up to 60).
    const elapsedMs = Number(after.at_ms) - Number(before.at_ms);
    expect(elapsedMs).toBeGreaterThan(0);
    expect(after.tokens).toBeCloseTo(Math.min(60, before.tokens + (elapsedMs * 60) / 60_000) - 1, 6);
  });
});

describe("hosted code from the browser", () => {
  test("an upload creates a version; a file that fails shows the upload's errors and stores nothing", async () => {
    const { context, page } = await newContext([400]);
    await signIn(page, ada);
    await Promise.all([page.waitForURL(`${server.url}/me/bots/${socketBotId}`), page.click(`#my-bots tr[data-bot="${socketBotId}"] a[href="/me/bots/${socketBotId}"]`)]);
    expect(await page.locator("#versions").count()).toBe(0);
    await page.setInputFiles("#upload-form input[type=file]", "examples/starter-bot.ts");
    await Promise.all([page.waitForURL(`${server.url}/me/bots/${socketBotId}?notice=uploaded`), page.click("#upload-form button[type=submit]")]);
    const versions = (await server.api("GET", `/api/bots/${socketBotId}/code`, { token: ada.token })).body as Array<{ version: number; current: boolean }>;
    expect(versions.map((v) => [v.version, v.current])).toEqual([[1, true]]);
    expect(await page.locator("#versions tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-version")))).toEqual(["1"]);
    await page.setInputFiles("#upload-form input[type=file]", { name: "broken.ts", mimeType: "video/mp2t", buffer: Buffer.from("export default {};\n") });
    const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/code") && r.request().method() === "POST"), page.click("#upload-form button[type=submit]")]);
    expect(answer.status()).toBe(400);
    expect(await page.locator("#alert").count()).toBe(1);
    expect(await page.locator("#upload-details").textContent()).toContain("stage:");
    expect(((await server.api("GET", `/api/bots/${socketBotId}/code`, { token: ada.token })).body as unknown[]).length).toBe(1);
    // /me now says the bot is hosted.
    await page.goto(`${server.url}/me`);
    expect(await page.locator(`#my-bots tr[data-bot="${socketBotId}"] [data-plays]`).getAttribute("data-plays")).toBe("hosted");
    await context.close();
  });

  test("a hosted bot's page shows its logs per match, the newest first, another match on request", async () => {
    const createdAt = new Date();
    await server.database.db.insert(hostedLogs).values([
      { botId: socketBotId, matchId: "m_older", version: 1, handNumber: 4, kind: "failure", failure: "timeout", level: "warn", message: "decision failed (timeout)", createdAt },
      { botId: socketBotId, matchId: "m_newer", version: 1, handNumber: 1, kind: "log", level: "info", message: "thinking <hard>", createdAt: new Date(createdAt.getTime() + 1) },
    ]);
    const { context, page } = await newContext();
    await signIn(page, ada);
    await page.goto(`${server.url}/me/bots/${socketBotId}`);
    expect(await page.locator("#logs-title").textContent()).toContain("m_newer");
    expect(await page.locator("#logs tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-kind"), tr.children[0].textContent, tr.children[2].textContent]))).toEqual([["log", "1", "thinking <hard>"]]);
    await page.goto(`${server.url}/me/bots/${socketBotId}?match=m_older`);
    expect(await page.locator("#logs tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]))).toEqual([["4", "failure (timeout)"]]);
    await context.close();
  });

  test("/me says when a bot's socket is connected", async () => {
    const { context, page } = await newContext();
    await signIn(page, bob);
    expect(await page.locator(`#my-bots tr[data-bot="${bobBotId}"] [data-connected]`).getAttribute("data-connected")).toBe("false");
    const bot = await new WsBot(server.url, bobBotKey).connect();
    // The connection is recorded a moment after the welcome (bot_presence, off the socket's path): a bounded poll.
    const shown = await until(async () => {
      await page.reload();
      return (await page.locator(`#my-bots tr[data-bot="${bobBotId}"] [data-connected]`).getAttribute("data-connected")) === "true" && "connected";
    }, 10_000, "/me to show the bot connected");
    expect(shown).toBe("connected");
    bot.disconnect();
    await context.close();
  });

  test("another developer's bot is not editable: its page and an upload to it are 403 and store nothing", async () => {
    const { context, page } = await newContext([403]);
    await signIn(page, bob);
    const csrf = (await csrfOf(page))!;
    const theirs = await page.goto(`${server.url}/me/bots/${socketBotId}`);
    expect(theirs!.status()).toBe(403);
    expect(await page.locator("#upload-form").count()).toBe(0);
    const before = ((await server.api("GET", `/api/bots/${socketBotId}/code`, { token: ada.token })).body as unknown[]).length;
    const form = new FormData();
    form.append("csrf", csrf);
    form.append("file", new File([await Bun.file("examples/starter-bot.ts").text()], "starter-bot.ts"));
    const cookie = `pbs_session=${(await sessionCookieOf(context))!.value}`;
    const upload = await fetch(`${server.url}/me/bots/${socketBotId}/code`, { method: "POST", headers: { cookie }, body: form, redirect: "manual" });
    expect(upload.status).toBe(403);
    expect(((await server.api("GET", `/api/bots/${socketBotId}/code`, { token: ada.token })).body as unknown[]).length).toBe(before);
    await context.close();
  });
});

test("at 375 px wide the signed-in pages do not overflow sideways (their tables scroll inside their sections)", async () => {
  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await signIn(page, ada);
  let checked = 0;
  for (const path of ["/me", `/me/bots/${socketBotId}`]) {
    expect((await page.goto(`${server.url}${path}`))!.status()).toBe(200);
    const { wide, scrollWidth } = await sidewaysOverflow(page, 375);
    expect([path, wide, scrollWidth <= 375]).toEqual([path, [], true]);
    checked += 1;
  }
  expect(checked).toBe(2);
  await context.close();
  consoleErrors.push(...errors);
});

test("the ledger audits clean after the faucet claims made from /me", async () => {
  const report = await auditLedger(server.database.db);
  expect(report.problems).toEqual([]);
  expect(report.ok).toBe(true);
});

test("no page wrote a console error", () => {
  expect(consoleErrors).toEqual([]);
});
