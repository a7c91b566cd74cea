/**
 * Issue 33, item 7: a bot file kept outside this repository imports `@poker-bots/sdk` as the
 * examples do, and `play` runs it (the CLI answers the import with its own SDK) instead of failing
 * with "Cannot find package '@poker-bots/sdk'".
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
const outside = mkdtempSync(join(tmpdir(), "bot-outside-"));
afterAll(() => rmSync(outside, { recursive: true, force: true }));

test("play runs a bot file from a folder outside the repository, run from there", async () => {
  copyFileSync(join(ROOT, "examples/starter-bot.ts"), join(outside, "my-bot.ts"));
  let stdout = "";
  let stderr = "";
  const code = await main(["play", "--players", "./my-bot.ts,caller", "--hands", "5", "--seed", "outside", "--json", "--out", join(outside, "match.phhs")], {
    env: { POKER_CONFIG: join(outside, "config.json") },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: outside,
    isTTY: false,
  });
  expect([code, stderr]).toEqual([0, ""]);
  const summary = JSON.parse(stdout);
  expect(summary.handsPlayed).toBe(5);
  expect(summary.players.map((p: { name: string }) => p.name)).toEqual(["my-bot", "caller"]);
});
