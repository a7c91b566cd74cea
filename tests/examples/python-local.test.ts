/**
 * `play`/`eval` with a bot given as a command: examples/python/README.md's local commands, run as
 * written through a shell (python3 is Debian's /usr/bin/python3 with python3-websockets), start the
 * service in-process and play real matches; a command that cannot connect is a clear error.
 */
import { afterAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../support/process";

setDefaultTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), "python-local-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The docs say `python3`; whatever python3 comes first on PATH (pyenv's may lack websockets), the test means Debian's.
const bin = join(dir, "bin");
Bun.spawnSync(["mkdir", "-p", bin]);
symlinkSync("/usr/bin/python3", join(bin, "python3"));

/** The README's shell lines that run the CLI locally (the first ```sh block). */
function readmeLocalCommands(): string[] {
  const readme = readFileSync(join(ROOT, "examples/python/README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(readme)![1];
  return block.split("\n").filter((line) => line.startsWith("bun run cli -- "));
}

async function shell(line: string) {
  const child = Bun.spawn(["/bin/sh", "-c", line], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TMPDIR: dir, POKER_CONFIG: join(dir, "config.json") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

/** Processes still running with this test's TMPDIR: the bots' commands must be stopped with the CLI. */
function strays(): string[] {
  const mine: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`TMPDIR=${dir}`)) mine.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {} // gone, or not ours to read
  }
  return mine;
}

test("the README's play command plays a whole match of the Python starter against a built-in, and it really answers", async () => {
  const [play] = readmeLocalCommands().filter((line) => line.includes(" play "));
  expect(play).toContain('"exec:python3 examples/python/starter_bot.py",tight');
  const result = await shell(`${play} --seed readme --verbose`);
  expect(result.stderr).not.toContain("error:");
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("local match · seed readme · 2 players · ");
  expect(result.stdout).toMatch(/\n {2}0 {5}starter_bot +\d+ +[+-]?\d+ +\d+ +—\n/);
  expect(result.stdout).toMatch(/\n {2}1 {5}tight +\d+/);
  // It answered for itself: a silent bot would only ever check or fold.
  expect(result.stdout).toMatch(/seat 0 \(starter_bot\) (calls|raises to|bets) \d+/);
  // The command saw the match: its own output, prefixed with its name.
  expect(result.stderr).toMatch(/\[starter_bot\] connected as starter_bot \(bot_\w+\)/);
  expect(result.stderr).toMatch(/\[starter_bot\] match over after \d+ hands/);
  const phhFile = /hand histories \(PHH\): (\S+)/.exec(result.stdout)![1];
  const hands = readFileSync(phhFile, "utf8").match(/^\[\d+\]$/gm) ?? [];
  const played = Number(/(\d+) hands in/.exec(result.stdout)![1]);
  expect(played).toBeGreaterThan(0);
  expect(hands).toHaveLength(played);
  expect(strays()).toEqual([]);
  expect(readdirSync(dir).filter((name) => name.startsWith("poker-bots-local-"))).toEqual([]);
});

test("the README's eval command evaluates the Python starter against a built-in on the service", async () => {
  const [evaluate] = readmeLocalCommands().filter((line) => line.includes(" eval "));
  expect(evaluate).toContain('"exec:python3 examples/python/starter_bot.py",tight');
  const result = await shell(`${evaluate} --hands 10 --seed readme --json`);
  expect(result.code).toBe(0);
  const summary = JSON.parse(result.stdout);
  expect(summary.pairings).toHaveLength(1);
  expect([summary.pairings[0].a, summary.pairings[0].b, summary.pairings[0].matches, summary.parallel]).toEqual(["starter_bot", "tight", 20, 1]);
  expect(summary.pairings[0].hands).toBeGreaterThan(20);
  // The adjusted figure comes from the service's stored hand histories, over the same hands.
  expect(summary.pairings[0].adjusted).toMatchObject({ matches: 20, hands: summary.pairings[0].hands });
  expect(summary.pairings[0].adjusted.ci95).toHaveLength(2);
});

test("a bot file, a command and a built-in at one table; a command that never connects is a clear error", async () => {
  const mixed = await shell(`bun run cli -- play --players ./examples/starter-bot.ts,"exec:python3 examples/python/starter_bot.py",caller --hands 6 --seed mixed --json`);
  expect(mixed.code).toBe(0);
  const summary = JSON.parse(mixed.stdout);
  expect(summary.players.map((p: { name: string; seat: number }) => `${p.seat}:${p.name}`)).toEqual(["0:starter-bot", "1:starter_bot", "2:caller"]);
  expect(summary.players.reduce((sum: number, p: { finalChips: number }) => sum + p.finalChips, 0)).toBe(3000);

  const broken = await shell(`bun run cli -- play --players "exec:python3 -c 'import sys; print(\\"no luck\\"); sys.exit(3)'",tight --hands 2`);
  expect(broken.code).toBe(1);
  expect(broken.stderr).toContain("[python3] no luck");
  expect(broken.stderr).toContain("exited (code 3) before it connected");
  const empty = await shell(`bun run cli -- play --players exec:,tight`);
  expect(empty.code).toBe(1);
  expect(empty.stderr).toContain('"exec:" names no command');
});
