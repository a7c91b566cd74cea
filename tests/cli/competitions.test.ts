/** The CLI's tournaments and challenge commands against a real server: create, enter, withdraw, start, show, and a challenge, with --json and in lines. */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/index";
import { ROOT } from "../support/process";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(90_000);

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), "cli-competitions-"));
beforeAll(async () => {
  server = await startTestServer("cli_competitions", { COMPETITIONS_TICK_MS: "50" });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(token: string, argv: string[]) {
  let stdout = "", stderr = "";
  const config = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  await Bun.write(config, JSON.stringify({ token, server: server.url }));
  const code = await main(argv, { env: { POKER_CONFIG: config, POKER_SERVER: server.url }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: ROOT, isTTY: false });
  return { code, stdout, stderr };
}

test("tournaments create|enter|withdraw|start|show and challenge", async () => {
  const [creator, a, b, c] = await Promise.all(["cli-creator", "cli-a", "cli-b", "cli-c"].map((label) => registerWithCredits(server, label)));
  const [botA, botB, botC] = await Promise.all([createBot(server, a.token, "a", "caller"), createBot(server, b.token, "b", "raiser"), createBot(server, c.token, "c", "tight")]);

  // A two-seat sit-and-go with rising blinds: one withdraws and enters again, then it plays.
  const created = await cli(creator.token, ["tournaments", "create", "--seats", "2", "--buy-in", "200", "--levels", "2:10/20,1:50/100", "--json"]);
  expect(created.code).toBe(0);
  const sng = JSON.parse(created.stdout);
  expect(sng.blindLevels).toEqual([{ hands: 2, smallBlind: 10, bigBlind: 20 }, { hands: 1, smallBlind: 50, bigBlind: 100 }]);
  expect((await cli(a.token, ["tournaments", "enter", sng.tournamentId, botA.botId])).stdout).toContain("seat 0, 200 chips");
  const withdrawn = await cli(a.token, ["tournaments", "withdraw", sng.tournamentId, botA.botId, "--json"]);
  expect(JSON.parse(withdrawn.stdout).cashout).toBe(200);
  expect((await cli(a.token, ["tournaments", "enter", sng.tournamentId, botA.botId])).code).toBe(0);
  expect((await cli(b.token, ["tournaments", "enter", sng.tournamentId, botB.botId])).code).toBe(0);
  const done = await until(async () => {
    const shown = await cli(creator.token, ["tournaments", "show", sng.tournamentId, "--json"]);
    const body = JSON.parse(shown.stdout);
    return body.status === "finished" ? body : null;
  }, 30_000, "the CLI's sit-and-go to finish");
  const lines = (await cli(creator.token, ["tournaments", "show", sng.tournamentId])).stdout;
  expect(lines).toContain(" 1. ");
  expect(lines).toContain(`cashout ${done.places[0].cashout}`);
  expect((await cli(creator.token, ["tournaments", "create", "--levels", "oops"])).code).toBe(2);

  // A round robin started from the CLI.
  const rr = JSON.parse((await cli(creator.token, ["tournaments", "create", "--kind", "round-robin", "--matches-per-pair", "1", "--hands", "5", "--buy-in", "100", "--json"])).stdout);
  for (const [dev, bot] of [[a, botA], [b, botB], [c, botC]] as const) expect((await cli(dev.token, ["tournaments", "enter", rr.tournamentId, bot.botId])).stdout).toContain("seated and charged at each match's start");
  const started = await cli(creator.token, ["tournaments", "start", rr.tournamentId, "--json"]);
  expect(JSON.parse(started.stdout)).toMatchObject({ status: "running", rounds: 3 });
  const list = await cli(creator.token, ["tournaments", "show"]);
  expect(list.stdout).toContain(rr.tournamentId);

  // A challenge: refused until the opponent opts in, then played.
  const refused = await cli(a.token, ["challenge", botA.botId, botC.botId, "--hands", "5", "--buy-in", "100"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("NOT_OPEN_TO_CHALLENGES");
  await until(async () => JSON.parse((await cli(creator.token, ["tournaments", "show", rr.tournamentId, "--json"])).stdout).status === "finished", 30_000, "the round robin to finish");
  expect((await server.api("PUT", `/api/bots/${botC.botId}/challenges`, { token: c.token, body: { openToChallenges: true, maxBuyIn: 100 } })).status).toBe(200);
  const played = await cli(a.token, ["challenge", botA.botId, botC.botId, "--hands", "5", "--buy-in", "100"]);
  expect(played.code).toBe(0);
  expect(played.stdout).toContain("unrated");
});
