/**
 * The README quick start, run for real: every fenced command between the quickstart markers, in
 * order, as a newcomer would type them, against a real server on port 0 (POKER_SERVER) with a
 * temporary config file (POKER_CONFIG). If the README and the code drift apart, this fails.
 *
 * Block kinds (an HTML comment before each block): `server` (the test's own server stands in for
 * it), `run` (each line must exit 0), `background` (started, must print a line before the test
 * goes on, and must exit 0 by the end).
 */
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestServer, type TestServer } from "../support/server";

// Real servers, real processes and whole matches: more than Bun's 5 s default.
setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");

interface Block {
  kind: "server" | "run" | "background";
  commands: string[];
}

export function quickstartBlocks(readme: string): Block[] {
  const start = readme.indexOf("<!-- quickstart:start -->");
  const end = readme.indexOf("<!-- quickstart:end -->");
  if (start < 0 || end < start) throw new Error("README has no quickstart markers");
  const section = readme.slice(start, end);
  const blocks: Block[] = [];
  const pattern = /<!-- quickstart: (server|run|background) -->\s*```sh\n([\s\S]*?)```/g;
  for (const match of section.matchAll(pattern)) {
    const commands = match[2]
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    blocks.push({ kind: match[1] as Block["kind"], commands });
  }
  // Every shell block in the section must be one the test runs.
  expect(blocks.length).toBe([...section.matchAll(/```sh/g)].length);
  return blocks;
}

let server: TestServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer("quickstart");
  dir = mkdtempSync(join(tmpdir(), "quickstart-"));
  env = { ...(process.env as Record<string, string>), POKER_SERVER: server.url, POKER_CONFIG: join(dir, "config.json"), TMPDIR: dir };
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function spawn(command: string) {
  return Bun.spawn(["bash", "-o", "pipefail", "-c", command], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
}

async function collect(stream: ReadableStream<Uint8Array>, sink: { text: string; firstLine?: () => void }) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    sink.text += decoder.decode(chunk, { stream: true });
    if (sink.text.includes("\n")) sink.firstLine?.();
  }
}

test("the README quick start works, command for command, against a real server", async () => {
  const blocks = quickstartBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
  expect(blocks.map((b) => b.kind)).toEqual(["server", "run", "background", "run", "run", "run"]);
  expect(blocks[0].commands).toContain("bun run start");

  const outputs = new Map<string, { stdout: string; stderr: string }>();
  const background: Array<{ command: string; exited: Promise<number>; out: { text: string }; err: { text: string } }> = [];
  for (const block of blocks.slice(1)) {
    for (const command of block.commands) {
      const child = spawn(command);
      const out: { text: string; firstLine?: () => void } = { text: "" };
      const err = { text: "" };
      if (block.kind === "background") {
        const ready = new Promise<void>((resolveReady) => (out.firstLine = resolveReady));
        const reading = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
        const exited = reading.then(() => child.exited);
        background.push({ command, exited, out, err });
        await Promise.race([ready, exited.then(() => {}), Bun.sleep(15_000)]);
        expect(out.text).toContain("watching table");
        continue;
      }
      await Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
      const code = await child.exited;
      if (code !== 0) throw new Error(`\`${command}\` exited ${code}\nstdout:\n${out.text}\nstderr:\n${err.text}`);
      outputs.set(command, { stdout: out.text, stderr: err.text });
    }
  }
  for (const job of background) {
    const code = await Promise.race([job.exited, Bun.sleep(30_000).then(() => -1)]);
    if (code !== 0) throw new Error(`\`${job.command}\` exited ${code}\nstdout:\n${job.out.text}\nstderr:\n${job.err.text}`);
  }

  // The watcher saw the whole match of the newcomer's bot, as readable lines.
  const watched = background[0].out.text;
  expect(watched).toMatch(/match m_\S+ started · seat \d \((sparring-caller|my-bot)\) 1000/);
  expect(watched).toMatch(/hand 1 · seat \d \((sparring-caller|my-bot)\) posts the small blind 5/);
  expect(watched).toMatch(/hand \d+ · flop: (\S\S ){2}\S\S\n/);
  expect(watched).toMatch(/match over after \d+ hands\n/);
  expect(watched).toMatch(/winner: /);

  // The bot ran on the SDK, played the match and exited on its own (--once).
  const botRun = [...outputs.entries()].find(([command]) => command.includes("starter-bot.ts"))![1];
  const events = botRun.stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
  expect(events.map((e) => e.event)).toContain("connected");
  const ended = events.find((e) => e.event === "match_ended");
  expect(ended.handsPlayed).toBeGreaterThan(0);

  // The service recorded it: the bot's stats show one match, and its money is accounted for.
  const config = JSON.parse(readFileSync(env.POKER_CONFIG, "utf8"));
  const botId = config.servers[server.url].bots["my-bot"].botId;
  const stats = await server.api("GET", `/api/stats/${botId}`);
  expect(stats.status).toBe(200);
  expect(stats.body.matchesPlayed).toBe(1);
  expect(stats.body.netChips).toBe(ended.profit);
  const matches = await server.api("GET", `/api/matches?botId=${botId}`);
  expect(matches.body).toHaveLength(1);
  expect(matches.body[0].players.find((p: { botId: string }) => p.botId === botId).finalChips).toBe(ended.finalChips);

  // The local match wrote its PHH and summary.
  const local = [...outputs.entries()].find(([command]) => command.includes(" play "))![1];
  expect(local.stdout).toMatch(/winner: \S+/);
  const phhPath = /hand histories \(PHH\): (\S+)/.exec(local.stdout)![1];
  expect(phhPath.startsWith(dir)).toBe(true);
  expect(existsSync(phhPath)).toBe(true);
  expect(readFileSync(phhPath, "utf8")).toStartWith("[1]\n");

  // The evaluation printed both figures with their intervals and a verdict.
  const evaluation = [...outputs.entries()].find(([command]) => command.includes(" eval "))![1];
  expect(evaluation.stdout).toMatch(/starter-bot vs tight: adjusted [+-]\d+\.\d bb\/100 \[[+-]\d+\.\d, [+-]\d+\.\d\] · raw [+-]\d+\.\d bb\/100 \[[+-]\d+\.\d, [+-]\d+\.\d\] · over \d+ hands/);
  expect(evaluation.stdout).toMatch(/(better than|no clear difference)/);
});
