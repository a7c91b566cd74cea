/** The CLI run in-process (main(argv, io)): help everywhere, local play, account and table commands, watch. */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";
import { parsePhhs, replayPhh } from "../../src/poker/phh";
import { until } from "../support/nodes";
import { startTestServer, type TestServer } from "../support/server";

// Real servers, real processes and whole matches: more than Bun's 5 s default.
setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "cli-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in this process; `progress` sees its output as it is written (for a command that is still running). */
async function cli(argv: string[], env: Record<string, string> = {}, progress?: (text: string) => void) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    env: { POKER_CONFIG: join(dir, "default-config.json"), ...env },
    stdout: (t) => {
      stdout += t;
      progress?.(t);
    },
    stderr: (t) => void (stderr += t),
    cwd: ROOT,
    isTTY: false,
  });
  return { code, stdout, stderr };
}

describe("typos", () => {
  test("an unknown command or subcommand says what was probably meant, and exits 2", async () => {
    const top = await cli(["faucte"]);
    expect([top.code, top.stderr]).toEqual([2, expect.stringContaining('unknown command "faucte" (did you mean "faucet"?)')]);
    const sub = await cli(["tables", "jion"]);
    expect([sub.code, sub.stderr]).toEqual([2, expect.stringContaining('unknown command "tables jion" (did you mean "join"?)')]);
    const far = await cli(["xyzzy"]);
    expect(far.stderr).not.toContain("did you mean");
  });

  test("through `bun run cli` on a terminal: the CLI's own message and exit code, no 'script exited with code 1' after it", async () => {
    // `script` gives the command a pseudo-terminal, as a user's shell would (Bun adds its line only on a terminal).
    const child = Bun.spawn(["script", "-qec", "bun run cli -- balance --server http://127.0.0.1:9", "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, POKER_CONFIG: join(dir, "tty-config.json") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, output] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    expect(code).toBe(1);
    expect(output).toContain("error: not logged in");
    expect(output).not.toContain("exited with code");
    expect(output).not.toContain("$ bun run src/cli/index.ts");
  });
});

describe("help", () => {
  const commands = [
    "register", "login", "whoami", "faucet", "balance", "watch", "verify", "ratings", "play",
    "bots create", "bots list", "bots rotate-key", "bots retire",
    "tables create", "tables join", "tables leave", "tables list", "tables show", "tables delete",
    "ladder enter", "ladder leave", "ladder status", "ladder standings",
    "tournaments create", "tournaments enter", "tournaments withdraw", "tournaments start", "tournaments show", "challenge",
  ];
  test("every command and subcommand answers --help with its usage and options", async () => {
    for (const command of commands) {
      const result = await cli([...command.split(" "), "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: bun run cli -- ${command}`);
      expect(result.stdout).toContain("--help");
    }
    const top = await cli(["--help"]);
    for (const command of commands) expect(top.stdout).toContain(command);
    for (const group of ["bots", "tables", "ladder", "tournaments"]) expect((await cli([group, "--help"])).stdout).toContain("Subcommands:");
  });

  test("mistakes get a message and a usage, exit 2", async () => {
    expect((await cli(["nope"])).code).toBe(2);
    expect((await cli(["bots", "nope"])).code).toBe(2);
    const badFlag = await cli(["play", "--players", "random,caller", "--bogus"]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain("unknown option --bogus");
    const badNumber = await cli(["play", "--players", "random,caller", "--hands", "many"]);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain("--hands must be an integer");
    expect((await cli(["play", "--players", "random"])).stderr).toContain("2 to 10 players");
    expect((await cli(["play", "--players", "random,nobody"])).stderr).toContain('unknown player "nobody"');
  });
});

describe("play (local, no server)", () => {
  test("a seeded match is reproducible, its PHH replays through the engine, and chips are conserved", async () => {
    const players = "./examples/starter-bot.ts,./examples/equity-bot.ts,tight,random";
    const runs = [];
    for (const n of [1, 2]) {
      const out = join(dir, `match-${n}.phhs`);
      const result = await cli(["play", "--players", players, "--hands", "40", "--seed", "7", "--out", out, "--json"]);
      expect(result.code).toBe(0);
      runs.push({ summary: JSON.parse(result.stdout), phh: readFileSync(out, "utf8") });
    }
    expect(runs[0].phh).toBe(runs[1].phh);
    const { phhFile: _a, elapsedMs: _b, ...first } = runs[0].summary;
    const { phhFile: _c, elapsedMs: _d, ...second } = runs[1].summary;
    expect(first).toEqual(second);
    const summary = runs[0].summary;
    expect(summary.players.map((p: { name: string }) => p.name)).toEqual(["starter-bot", "equity-bot", "tight", "random"]) // named as `eval` names them: the file's base name;
    expect(summary.players.reduce((sum: number, p: { finalChips: number }) => sum + p.finalChips, 0)).toBe(4000);
    expect(summary.players.reduce((sum: number, p: { profit: number }) => sum + p.profit, 0)).toBe(0);
    const hands = parsePhhs(runs[0].phh);
    expect(hands).toHaveLength(summary.handsPlayed);
    expect(hands.length).toBeGreaterThan(0);
    for (const { hand } of hands) expect(replayPhh(hand).finishingStacks).toEqual(hand.finishing_stacks!);
    // A different seed deals different cards.
    const other = await cli(["play", "--players", players, "--hands", "40", "--seed", "8", "--out", join(dir, "other.phhs"), "--quiet"]);
    expect(readFileSync(join(dir, "other.phhs"), "utf8")).not.toBe(runs[0].phh);
    expect(other.stdout).toContain("seed 8");
  });

  test("the readable summary, progress lines for long runs, and --verbose narration", async () => {
    const result = await cli(["play", "--players", "caller,raiser", "--hands", "60", "--seed", "3", "--out", join(dir, "s.phhs")]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/local match · seed 3 · 2 players · \d+ hands in/);
    expect(result.stdout).toMatch(/winner: (caller|raiser)/);
    expect(result.stdout).toContain(`hand histories (PHH): ${join(dir, "s.phhs")}`);
    expect(result.stdout).toContain("replay: bun run cli -- play --players caller,raiser --hands 60 --seed 3");
    expect(result.stderr).toMatch(/hand 6\/60 · /);
    const verbose = await cli(["play", "--players", "caller,caller", "--hands", "2", "--seed", "3", "--out", join(dir, "v.phhs"), "--verbose"]);
    expect(verbose.stdout).toContain("hand 1 · seat 0 (caller) posts the small blind 5");
    expect(verbose.stdout).toMatch(/hand 1 · flop: \S\S \S\S \S\S\n/);
    expect(verbose.stdout).toMatch(/hand 1 · seat \d \(caller(#2)?\) wins \d+/);
  });

  test("bots that misbehave or run out of time are checked/folded for, as the server does", async () => {
    const bad = await cli(["play", "--players", "./tests/cli/fixtures/bad-bot.ts,caller", "--hands", "5", "--seed", "1", "--json", "--out", join(dir, "b.phhs")]);
    expect(bad.code).toBe(0);
    expect(JSON.parse(bad.stdout).handsPlayed).toBe(5);
    const slow = await cli(["play", "--players", "./tests/cli/fixtures/slow-bot.ts,caller", "--hands", "2", "--timeout", "20", "--seed", "1", "--json", "--out", join(dir, "t.phhs")]);
    expect(slow.code).toBe(0);
    const slowBot = JSON.parse(slow.stdout).players[0];
    expect(slowBot.name).toBe("slow-bot");
    expect(slowBot.timeouts).toBeGreaterThanOrEqual(2);
    const notABot = await cli(["play", "--players", "./tests/cli/fixtures/not-a-bot.ts,caller"]);
    expect(notABot.code).toBe(1);
    expect(notABot.stderr).toContain("must export default a bot");
  });
});

describe("against a server", () => {
  let server: TestServer;
  const config = join(dir, "server-config.json");
  const run = (argv: string[], progress?: (text: string) => void) => cli(argv, { POKER_SERVER: server.url, POKER_CONFIG: config }, progress);
  /** This server's entry of the config file, as written now. */
  const saved_ = () => JSON.parse(readFileSync(config, "utf8")).servers[server.url];

  beforeAll(async () => {
    server = await startTestServer("cli_commands");
  });
  afterAll(() => server?.close());

  test("account, credits, bots and tables; the config file keeps the token, keys and last table", async () => {
    expect((await run(["balance"])).stderr).toContain("not logged in");
    const registered = await run(["register", "--email", "cli@example.com", "--password", "a long password"]);
    expect(registered.code).toBe(0);
    expect((await run(["login", "--email", "cli@example.com", "--password", "wrong password"])).stderr).toContain("UNAUTHORIZED");
    expect((await run(["login", "--email", "cli@example.com", "--password", "a long password"])).code).toBe(0);
    expect((await run(["whoami"])).stdout).toContain("cli@example.com");
    expect((await run(["faucet"])).stdout).toContain("claimed 10000 credits · balance 10000");
    const again = await run(["faucet"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("cooling down");
    // The cooldown as a duration, not only a raw timestamp.
    expect(again.stderr).toMatch(/next claim in 2[34] h \d+ min \(20\d\d-/);
    expect((await run(["balance"])).stdout).toContain("balance 10000 credits");

    const created = await run(["bots", "create", "mine"]);
    expect(created.stdout).toMatch(/api key: pbk_\S+/);
    const file = JSON.parse(readFileSync(config, "utf8"));
    expect(file.server).toBe(server.url);
    const saved = file.servers[server.url];
    expect(saved.token).toBeString();
    const firstKey = saved.bots.mine.apiKey;
    expect(created.stdout).toContain(firstKey);
    expect((await run(["bots", "create", "sparring", "--strategy", "caller"])).stdout).toContain("built-in strategy caller");
    expect((await run(["bots", "create", "mine"])).code).toBe(1); // a name is unique per developer
    const list = await run(["bots", "list"]);
    expect(list.stdout).toContain("mine  remote (api key saved)");
    expect(list.stdout).toContain("sparring  built-in caller");
    expect((await run(["bots", "list", "--all"])).stdout).toContain(saved.bots.mine.botId);
    const rotated = await run(["bots", "rotate-key", "mine"]);
    const newKey = saved_().bots.mine.apiKey;
    expect(newKey).not.toBe(firstKey);
    expect(rotated.stdout).toContain(newKey);

    const table = await run(["tables", "create", "--max-players", "3", "--max-hands", "5"]);
    const tableId = /created table (tbl_\S+)/.exec(table.stdout)![1];
    expect(saved_().lastTableId).toBe(tableId);
    expect((await run(["tables", "join", "last", "--bot", "mine"])).stdout).toContain("waiting for 2 more bots");
    expect((await run(["tables", "list"])).stdout).toContain(`${tableId}  waiting  1/3 seats`);
    expect((await run(["tables", "show", tableId])).stdout).toContain(`seat 0  ${saved.bots.mine.botId}  1000 chips`);
    expect((await run(["balance"])).stdout).toContain("balance 9000 credits");
    expect((await run(["tables", "leave", "last", "--bot", "mine"])).stdout).toContain("1000 credits returned");
    expect((await run(["tables", "join", "last", "--bot", "nobody"])).stderr).toContain('no bot named "nobody"');

    expect((await run(["tables", "join", "last", "--bot", "mine"])).code).toBe(0);
    expect((await run(["tables", "delete", "last"])).stdout).toContain(`deleted ${tableId}; 1 bot refunded, 1000 credits in all`);
    expect((await run(["balance"])).stdout).toContain("balance 10000 credits");
    expect((await run(["tables", "list"])).stdout).not.toContain(tableId);
    expect((await run(["bots", "retire", "mine"])).stdout).toContain(`retired mine (${saved.bots.mine.botId})`);
    expect(saved_().bots.mine).toBeUndefined();
    expect((await run(["bots", "list"])).stdout).not.toContain("mine ");
    expect((await run(["bots", "create", "mine"])).code).toBe(0); // the name is free again
  });

  test("watch streams a match as readable lines and exits when it ends; a finished table prints its result", async () => {
    await run(["bots", "create", "caller-a", "--strategy", "caller"]);
    await run(["bots", "create", "caller-b", "--strategy", "caller"]);
    const table = await run(["tables", "create", "--max-players", "2", "--max-hands", "4", "--seed", "watch"]);
    const tableId = /created table (tbl_\S+)/.exec(table.stdout)![1];
    await run(["tables", "join", tableId, "--bot", "caller-a"]);
    let said = "";
    const watching = run(["watch", "last"], (text) => void (said += text));
    // The second seat (which starts the match) once watch has said it is watching the waiting table.
    await until(async () => said.includes(`watching table ${tableId}`), 20_000, "watch's first line");
    await run(["tables", "join", tableId, "--bot", "caller-b"]);
    const watched = await watching;
    expect(watched.code).toBe(0);
    const lines = watched.stdout.split("\n");
    expect(lines[0]).toStartWith(`watching table ${tableId} · waiting · 1/2 seats`);
    expect(watched.stdout).toMatch(/match m_\S+ started · seat 0 \(caller-a\) 1000, seat 1 \(caller-b\) 1000/);
    expect(watched.stdout).toContain("hand 1 · seat 0 (caller-a) posts the small blind 5");
    expect(watched.stdout).toMatch(/hand 1 · flop: \S\S \S\S \S\S\nhand 1 · seat 1 \(caller-b\) checks/);
    expect(watched.stdout).toMatch(/hand 1 · seat \d \(caller-[ab]\) shows \S\S \S\S: /);
    expect(watched.stdout).toMatch(/hand 4 · seat \d \(caller-[ab]\) wins \d+/);
    expect(lines.filter((l) => l.startsWith("match over after 4 hands"))).toHaveLength(1);
    expect(watched.stdout).toMatch(/winner: caller-[ab]/);

    const later = await run(["watch", tableId]);
    expect(later.code).toBe(0);
    expect(later.stdout).toContain("the match is over");
    expect(later.stdout).toContain("match over after 4 hands");
    expect((await run(["watch", "tbl_nope"])).code).toBe(1);
  });
});
