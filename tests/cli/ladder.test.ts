/** The CLI's ladder commands (enter, leave, status, standings; --json on each) against a real server with a fast ladder. */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";
import { until } from "../support/nodes";
import { startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "cli-ladder-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: TestServer;
beforeAll(async () => {
  // Ladder matches of 4 hands, paired every 50 ms; a small buy-in, so that losses never pause the entry mid-test.
  server = await startTestServer("cli_ladder", { LADDER_HANDS: "4", LADDER_PAIR_EVERY_MS: "50", LADDER_BUY_IN: "200" });
});
afterAll(() => server?.close());

async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    env: { POKER_SERVER: server.url, POKER_CONFIG: join(dir, "config.json") },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: ROOT,
    isTTY: false,
  });
  return { code, stdout, stderr };
}
const json = async (argv: string[]) => {
  const result = await run([...argv, "--json"]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

describe("ladder", () => {
  let built: string;
  let remote: string;

  beforeAll(async () => {
    expect((await run(["register", "--email", "ladder@example.com", "--password", "a long password"])).code).toBe(0);
    expect((await run(["faucet"])).code).toBe(0);
    built = /\((bot_\S+)\)/.exec((await run(["bots", "create", "lad-caller", "--strategy", "caller"])).stdout)![1];
    remote = /\((bot_\S+)\)/.exec((await run(["bots", "create", "lad-remote"])).stdout)![1];
  });

  test("enter by name or id, with the reason and remedy of a paused entry; mistakes are usage errors or the API's", async () => {
    expect((await run(["ladder", "status"])).stdout).toContain("no bot of yours is on the ladder");
    const entered = await run(["ladder", "enter", "lad-caller"]);
    expect(entered.code).toBe(0);
    expect(entered.stdout).toContain(`on the ladder: lad-caller (${built})  heads-up  0 ladder matches  active`);
    // The same entry again: the one already there. By bot id too.
    expect((await json(["ladder", "enter", built])).botId).toBe(built);
    const offline = await run(["ladder", "enter", "lad-remote"]);
    expect(offline.stdout).toContain("paused (BOT_OFFLINE): the bot is not connected: run it and leave it running (bun examples/starter-bot.ts --bot lad-remote)");
    expect(await json(["ladder", "enter", remote, "--format", "six-max"])).toMatchObject({ botId: remote, format: "six-max", status: "paused", reason: "BOT_OFFLINE" });

    const badFormat = await run(["ladder", "enter", "lad-caller", "--format", "nine-max"]);
    expect([badFormat.code, badFormat.stderr]).toEqual([2, expect.stringContaining('--format must be heads-up or six-max, got "nine-max"')]);
    expect((await run(["ladder", "enter"])).code).toBe(2);
    expect((await run(["ladder", "enter", "nobody"])).stderr).toContain('no bot named "nobody"');
    const unknown = await run(["ladder", "enter", "bot_00000000000000000000000000"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining("(NOT_FOUND)")]);
  });

  test("status says how many ladder matches each entry played and why one is paused; standings list the format's bots by rating", async () => {
    await until(async () => (await json(["ladder", "status"])).find((e: any) => e.botId === built)?.matchesPlayed >= 1, 30_000, "a ladder match of lad-caller");
    const status = (await run(["ladder", "status"])).stdout.split("\n");
    expect(status.find((l) => l.startsWith("lad-caller"))).toMatch(new RegExp(`^lad-caller \\(${built}\\)  heads-up  \\d+ ladder match(es)?  active$`));
    expect(status.filter((l) => l.startsWith("lad-remote") && l.includes("paused (BOT_OFFLINE)"))).toHaveLength(2);

    const standings = (await json(["ladder", "standings"])) as Array<{ botId: string; name: string; rating: number }>;
    expect(standings.map((s) => s.name)).toContain("lad-caller");
    expect(standings.every((s, i) => i === 0 || s.rating <= standings[i - 1].rating)).toBe(true);
    const lines = (await run(["ladder", "standings", "--limit", "3"])).stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ {2}1\. \S+ +rating +-?\d+\.\d\d \(mu \d+\.\d\d ± sigma \d+\.\d\d\)  \d+ match(es)?  -?[\d.]+ bb\/100 (\[-?[\d.]+, -?[\d.]+\]|\(too few hands\)), adjusted -?[\d.]+ (\[-?[\d.]+, -?[\d.]+\]|\(too few hands\)) \((aivat-2|aivat-1|chance-1|mixed)\)$/);
    const sixMax = (await json(["ladder", "standings", "--format", "six-max"])) as Array<{ name: string }>;
    expect(sixMax.map((s) => s.name)).toContain("lad-remote");
    expect(sixMax.some((s) => s.name.startsWith("house-"))).toBe(true);
  });

  test("leave takes an entry off (a second leave is the API's 404); --json gives the entry as it stood", async () => {
    const left = await run(["ladder", "leave", "lad-caller"]);
    expect(left.code).toBe(0);
    expect(left.stdout).toMatch(/^lad-caller left the heads-up ladder after \d+ ladder match(es)? \(a match in play finishes first\)/);
    const again = await run(["ladder", "leave", "lad-caller"]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("(NOT_FOUND)")]);
    expect(await json(["ladder", "leave", "lad-remote", "--format", "six-max"])).toMatchObject({ botId: remote, format: "six-max" });
    expect((await json(["ladder", "status"])).map((e: any) => [e.botId, e.format])).toEqual([[remote, "heads-up"]]);
    expect((await run(["ladder", "leave", "lad-remote"])).code).toBe(0);
  });
});
