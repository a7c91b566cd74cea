/** Credentials per server: a token goes only to the server that issued it; old single-server files still work. */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";
import { resolveRunOptions } from "@poker-bots/sdk";
import { startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "cli-servers-"));
let server: TestServer;
/** A second "server" that records what it is sent and answers every read with nothing. */
let other: ReturnType<typeof Bun.serve>;
const seenByOther: Array<{ path: string; authorization: string | null }> = [];
const otherUrl = () => `http://127.0.0.1:${other.port}`;

beforeAll(async () => {
  server = await startTestServer("cli_servers");
  other = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      seenByOther.push({ path: url.pathname, authorization: request.headers.get("authorization") });
      if (url.pathname.endsWith("/hands")) return Response.json({ hands: [] });
      if (url.pathname === "/api/matches") return Response.json([]);
      return Response.json({ error: { code: "UNAUTHORIZED", message: "Invalid token" } }, { status: 401 });
    },
  });
});
afterAll(async () => {
  other?.stop(true);
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { env, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: ROOT, isTTY: false });
  return { code, stdout, stderr };
}

test("logged in to one server, another gets no token: public reads work anonymously, private ones say to log in there", async () => {
  const config = join(dir, "two-servers.json");
  const onFirst = (argv: string[]) => cli(argv, { POKER_SERVER: server.url, POKER_CONFIG: config });
  const onOther = (argv: string[]) => cli(argv, { POKER_SERVER: otherUrl(), POKER_CONFIG: config });
  expect((await onFirst(["register", "--email", "two@example.com", "--password", "a long password"])).code).toBe(0);
  expect((await onFirst(["whoami"])).stdout).toContain("two@example.com");

  const listed = await onOther(["matches"]);
  expect([listed.code, listed.stdout.trim()]).toEqual([0, "no completed matches yet"]);
  const hands = await onOther(["hands", "m_elsewhere"]);
  expect([hands.code, hands.stdout.trim()]).toEqual([0, "no more hands"]);
  const balance = await onOther(["balance"]);
  expect(balance.code).toBe(1);
  expect(balance.stderr).toContain(`not logged in to ${otherUrl()}: run \`bun run cli -- login`);
  // Both reads reached the other server, and neither carried the first server's token.
  expect(seenByOther.map((r) => r.path)).toEqual(["/api/matches", "/api/matches/m_elsewhere/hands"]);
  expect(seenByOther.filter((r) => r.authorization !== null)).toEqual([]);

  const file = JSON.parse(readFileSync(config, "utf8"));
  expect(Object.keys(file.servers)).toEqual([server.url]);
  expect(file.token).toBeUndefined();
  // The first server still has its token: --server picks the entry, not only the URL.
  expect((await cli(["whoami", "--server", server.url + "/"], { POKER_SERVER: otherUrl(), POKER_CONFIG: config })).stdout).toContain("two@example.com");
});

test("register with an email already taken says to log in, and exits non-zero", async () => {
  const config = join(dir, "taken.json");
  const run = (argv: string[]) => cli(argv, { POKER_SERVER: server.url, POKER_CONFIG: config });
  expect((await run(["register", "--email", "taken@example.com", "--password", "a long password"])).code).toBe(0);
  const again = await run(["register", "--email", "taken@example.com", "--password", "a long password"]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`taken@example.com is already registered on ${server.url}: run \`bun run cli -- login --email taken@example.com`);
});

test("an expired or foreign token does not break a public read: it is asked again anonymously", async () => {
  const config = join(dir, "stale.json");
  writeFileSync(config, JSON.stringify({ server: server.url, servers: { [server.url]: { token: "not-a-valid-token" } } }));
  // hands sends the token when there is one (an owner sees its bots' cards): the server's answer is about the match, not the token.
  const hands = await cli(["hands", "m_none"], { POKER_CONFIG: config });
  expect(hands.code).toBe(1);
  expect(hands.stderr).toContain("(NOT_FOUND)");
  expect(hands.stderr).not.toContain("UNAUTHORIZED");
});

test("an old single-server config file becomes that server's entry, and a bot's key is found only for its server", async () => {
  const config = join(dir, "old.json");
  const run = (argv: string[]) => cli(argv, { POKER_CONFIG: config });
  expect((await run(["register", "--email", "old@example.com", "--password", "a long password", "--server", server.url])).code).toBe(0);
  const token = JSON.parse(readFileSync(config, "utf8")).servers[server.url].token;
  // The layout every earlier version wrote: one token, its bots and last table at the top level.
  writeFileSync(config, JSON.stringify({ server: server.url, token, email: "old@example.com", bots: { legacy: { botId: "bot_legacy", apiKey: "pbk_legacy" } }, lastTableId: "tbl_legacy" }));
  expect((await run(["whoami"])).stdout).toContain(`old@example.com`);
  expect((await run(["bots", "create", "fresh"])).code).toBe(0);
  const file = JSON.parse(readFileSync(config, "utf8"));
  expect(Object.keys(file).sort()).toEqual(["server", "servers"]);
  const entry = file.servers[server.url];
  expect([entry.email, entry.lastTableId, entry.bots.legacy.apiKey]).toEqual(["old@example.com", "tbl_legacy", "pbk_legacy"]);
  expect(entry.bots.fresh.apiKey).toStartWith("pbk_");

  expect(resolveRunOptions(["--bot", "legacy"], { POKER_CONFIG: config }).apiKey).toBe("pbk_legacy");
  expect(() => resolveRunOptions(["--bot", "legacy", "--server", otherUrl()], { POKER_CONFIG: config })).toThrow(`no api key saved for bot "legacy" on ${otherUrl()}`);
});
