import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";
import { fairDeck } from "../../src/poker/fair-deck";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";
import { until } from "../support/nodes";
import { Spectator } from "../support/spectator";
import { WsBot, type Message } from "../support/ws-bot";
import { restoreAsJson, storedHands } from "../support/stored-hands";

setDefaultTimeout(90_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "fairness-test-"));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("fairness");
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], token?: string) {
  let stdout = "", stderr = "";
  const config = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  if (token) await Bun.write(config, JSON.stringify({ token, server: server.url }));
  const code = await main(argv, {
    env: { POKER_CONFIG: config, POKER_SERVER: server.url },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: ROOT,
    isTTY: false,
  });
  return { code, stdout, stderr };
}

/** Run as a separate process (the server lives in this one: a blocking spawn would starve it). */
async function standalone(matchId: string) {
  const run = Bun.spawn(["bun", join(ROOT, "docs/verify-deals.mjs"), server.url, matchId], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  return { code, out: out + err };
}

/** Tamper: the hand's first flop card becomes another card; `cli verify` and the standalone script both name the hand. */
async function expectTamperCaught(matchId: string, handNumber: number) {
  // Stored compactly, a hand's cards come from the secret and cannot lie: the server is made to serve JSON rows instead.
  let tampered = 0;
  await restoreAsJson(server.testDb.url, matchId, (hand) => {
    if (hand.handNumber !== handNumber) return;
    expect(hand.board.length).toBeGreaterThan(0);
    hand.board[0] = (hand.board[0] + 1) % 52;
    tampered++;
  });
  expect(tampered).toBe(1);
  const caught = await cli(["verify", matchId]);
  expect(caught.code).toBe(1);
  expect(caught.stderr).toContain(`hand ${handNumber}`);
  const scriptCaught = await standalone(matchId);
  expect(scriptCaught.code).not.toBe(0);
  expect(scriptCaught.out).toContain(`hand ${handNumber}`);
}

describe("provably fair deals: commit at match start, reveal after, anyone re-derives every card", () => {
  let matchId: string;
  let commitment: string;
  let owner: { token: string };

  beforeAll(async () => {
    owner = await registerWithCredits(server, "fair");
    const remote = await createBot(server, owner.token, "remote");
    // The remote bot holds its first answer until the checks below are done, so the match is seen running.
    const held: Message[] = [];
    const bot = await new WsBot(server.url, remote.apiKey, (request) => {
      if (held.length > 0) return { action: request.legalActions.includes("check") ? "check" : "call" };
      held.push(request);
      return "silent";
    }).connect();
    const others = [(await createBot(server, owner.token, "c", "caller")).botId, (await createBot(server, owner.token, "t", "tight")).botId];
    // A clock long enough that the held answer is the test's to give, however loaded the machine.
    const table = await server.api("POST", "/api/tables", { token: owner.token, body: { maxPlayers: 3, maxHands: 30, actionTimeoutMs: 60_000 } });
    const tableId = table.body.tableId;
    const watcher = await Spectator.watch(server.url, tableId);
    for (const botId of [remote.botId, ...others]) await server.api("POST", `/api/tables/${tableId}/join`, { token: owner.token, body: { botId } });
    const started = await bot.next((m) => m.type === "match_started");
    const firstRequest = await bot.next((m) => m.type === "action_request");
    matchId = started.matchId;
    commitment = started.deckCommitment;
    expect(commitment).toMatch(/^[0-9a-f]{64}$/);
    // While it runs: the commitment is public, the secret is not.
    const running = await server.api("GET", `/api/tables/${tableId}`);
    expect(running.body).toMatchObject({ status: "running", deckCommitment: commitment });
    const early = await server.api("GET", `/api/matches/${matchId}/fairness`);
    expect(early.status).toBe(404);
    expect(early.body.error.code).toBe("NOT_FOUND");
    expect(held).toEqual([firstRequest]);
    bot.send({ type: "action", requestId: firstRequest.requestId, action: "fold" });
    await bot.next((m) => m.type === "match_ended");
    await watcher.next((m) => m.type === "match_ended");
    watcher.close();
    bot.disconnect();
    expect((await watcher.next((m) => m.type === "match_started")).deckCommitment).toBe(commitment);
  });

  test("after the match the secret is revealed, hashes to the commitment, and deals every recorded card", async () => {
    const fairness = await server.api("GET", `/api/matches/${matchId}/fairness`);
    expect(fairness.status).toBe(200);
    expect(fairness.body).toEqual({ matchId, deckCommitment: commitment, deckSecret: expect.stringMatching(/^[0-9a-f]{64}$/), algorithm: "hmac-sha256-fisher-yates-v1", handsPlayed: expect.any(Number), voidedHands: [], twinMatchId: null, round: null });
    expect(createHash("sha256").update(Buffer.from(fairness.body.deckSecret, "hex")).digest("hex")).toBe(commitment);
    // The stored histories (every card) against the derivation, hand by hand.
    const rows = await storedHands(server.testDb.url, matchId);
    expect(rows.length).toBe(fairness.body.handsPlayed);
    // Hands with a board to check, not only hands folded before the flop.
    expect(rows.filter((history) => history.board.length > 0).length).toBeGreaterThan(0);
    for (const history of rows) {
      const deck = fairDeck(fairness.body.deckSecret, history.handNumber);
      const n = history.players.length;
      expect(history.board).toEqual([1, 2, 3, 5, 7].slice(0, history.board.length).map((at) => deck[2 * n + at]));
    }
  });

  test("`cli verify` and the standalone script of docs/FAIRNESS.md agree, and both catch a tampered card", async () => {
    const anonymous = await cli(["verify", matchId]);
    expect(anonymous.stderr).toBe("");
    expect(anonymous.code).toBe(0);
    expect(anonymous.stdout).toContain("OK");
    expect((await cli(["verify", matchId], owner.token)).code).toBe(0);
    const script = await standalone(matchId);
    expect(script.out).toContain("OK");
    expect(script.code).toBe(0);
    // The script in the doc is the file the test runs, and stays under 40 lines.
    const file = readFileSync(join(ROOT, "docs/verify-deals.mjs"), "utf8");
    expect(readFileSync(join(ROOT, "docs/FAIRNESS.md"), "utf8")).toContain(file.trim());
    expect(file.trim().split("\n").length).toBeLessThan(40);

    await expectTamperCaught(matchId, 2);
  });

  test("a duplicate pair: both copies commit to one secret and name each other; `cli verify` and the script check each copy and the shared commitment", async () => {
    const dev = await registerWithCredits(server, "pair");
    const table = await server.api("POST", "/api/tables", { token: dev.token, body: { duplicate: true, maxPlayers: 2, maxHands: 20 } });
    for (const name of ["pair-a", "pair-b"]) {
      const bot = await createBot(server, dev.token, name, "caller");
      expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: bot.botId } })).status).toBe(201);
    }
    const views = async () => Promise.all([table.body.tableId, table.body.twinTableId].map(async (id) => (await server.api("GET", `/api/tables/${id}`)).body));
    const pair = await until(async () => {
      const both = await views();
      return both.every((v) => v.status === "finished") && both;
    }, 30_000, "both copies to finish");
    const [one, two] = pair.map((v) => v.matchId as string);
    const records = await Promise.all([one, two].map(async (id) => (await server.api("GET", `/api/matches/${id}/fairness`)).body));
    expect(records.map((r) => r.twinMatchId)).toEqual([two, one]);
    expect(records[1].deckCommitment).toBe(records[0].deckCommitment);
    let verified = 0;
    for (const matchId of [one, two]) {
      const checked = await cli(["verify", matchId]);
      expect([checked.code, checked.stderr]).toEqual([0, ""]);
      expect(checked.stdout).toContain("committed to the same secret");
      expect((await standalone(matchId)).code).toBe(0);
      verified++;
    }
    expect(verified).toBe(2);
  });

  test("a seeded match has no commitment and no fairness record (it deals from its seed)", async () => {
    const dev = await registerWithCredits(server, "seeded");
    const bots = [(await createBot(server, dev.token, "s1", "caller")).botId, (await createBot(server, dev.token, "s2", "caller")).botId];
    const table = await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 3, seed: "s" } });
    for (const botId of bots) await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId } });
    const view = await until(async () => {
      const answer = await server.api("GET", `/api/tables/${table.body.tableId}`);
      return answer.body.status === "finished" && answer;
    }, 30_000, "the seeded match to finish");
    expect(view.body.deckCommitment).toBeNull();
    expect((await server.api("GET", `/api/matches/${view.body.matchId}/fairness`)).status).toBe(404);
    expect((await cli(["verify", view.body.matchId])).code).not.toBe(0);
  });

  test("a 1,000-hand match: `cli verify` and the standalone script check all 1,000 hands (every page), and catch a card tampered in hand 900", async () => {
    const dev = await registerWithCredits(server, "long");
    const table = await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: 1_000, smallBlind: 1, bigBlind: 1 } });
    for (const name of ["long-a", "long-b"]) {
      const bot = await createBot(server, dev.token, name, "caller");
      expect((await server.api("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: bot.botId } })).status).toBe(201);
    }
    const view = await until(async () => {
      const answer = (await server.api("GET", `/api/tables/${table.body.tableId}`)).body;
      return answer.status === "finished" && answer;
    }, 60_000, "the 1,000-hand match to finish");
    const longMatch = view.matchId as string;
    expect((await server.api("GET", `/api/matches/${longMatch}`)).body.handsPlayed).toBe(1_000);

    const verified = await cli(["verify", longMatch]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain("; 1000 hands,");
    const script = await standalone(longMatch);
    expect(script.code).toBe(0);
    expect(script.out).toContain("OK: 1000 hands");

    await expectTamperCaught(longMatch, 900);
  });
});
