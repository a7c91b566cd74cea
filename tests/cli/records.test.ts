/** The CLI's record commands (matches, hands, stats, leaderboard, transactions) against a real server, and the narrator's bet/raise words. */
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main } from "../../src/cli/index";
import { TableNarrator } from "@poker-bots/sdk/narrator";
import { until } from "../support/nodes";
import { startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "cli-records-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("cli_records", { LEADERBOARD_MIN_MATCHES: "1" });
});
afterAll(() => server?.close());

async function run(argv: string[], config = "records.json") {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    env: { POKER_SERVER: server.url, POKER_CONFIG: join(dir, config) },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: ROOT,
    isTTY: false,
  });
  return { code, stdout, stderr };
}

describe("narration", () => {
  test("an opening bet is a bet, a bet over a bet is a raise; preflop over the big blind is a raise", () => {
    const n = new TableNarrator();
    n.lines({ type: "hand_started", handNumber: 1, button: 0, smallBlind: 5, bigBlind: 10, seats: [] } as any);
    expect(n.actionVerb("small_blind", 5)).toBe("posts the small blind 5");
    expect(n.actionVerb("big_blind", 10)).toBe("posts the big blind 10");
    expect(n.actionVerb("raise", 30)).toBe("raises to 30");
    n.lines({ type: "street", handNumber: 1, street: "turn", board: ["Js", "Jc", "2d", "Tc"] } as any);
    expect(n.actionVerb("check", 0)).toBe("checks");
    expect(n.actionVerb("raise", 20)).toBe("bets 20");
    expect(n.actionVerb("raise", 60)).toBe("raises to 60");
    expect(n.actionVerb("call", 40)).toBe("calls 40");
  });

  test("a watcher that arrives after the match started learns its id from the first line (it never hears match_started)", () => {
    const table = (status: string, matchId: string | null) => ({ tableId: "tbl_1", status, matchId, seats: [], config: { maxPlayers: 2, smallBlind: 5, bigBlind: 10, maxHands: 6 } });
    const n = new TableNarrator();
    expect(n.lines({ type: "watching", table: table("running", "m_42") } as any)).toEqual(["watching table tbl_1 · running · match m_42 · 0/2 seats · blinds 5/10 · up to 6 hands"]);
    expect(n.lines({ type: "watching", table: table("waiting", null) } as any)[0]).toStartWith("watching table tbl_1 · waiting · 0/2 seats");
  });
});

describe("records", () => {
  let matchId = "";

  beforeAll(async () => {
    expect((await run(["register", "--email", "records@example.com", "--password", "a long password"])).code).toBe(0);
    await run(["faucet"]);
    await run(["bots", "create", "rec-raiser", "--strategy", "raiser"]);
    // A rival developer: matches between one developer's own bots are not ranked (nor are seeded tables).
    expect((await run(["register", "--email", "rival@example.com", "--password", "a long password"], "rival.json")).code).toBe(0);
    await run(["faucet"], "rival.json");
    await run(["bots", "create", "rec-caller", "--strategy", "caller"], "rival.json");
    await run(["tables", "create", "--max-players", "2", "--max-hands", "6"]);
    await run(["tables", "join", "last", "--bot", "rec-raiser"]);
    const callerId = JSON.parse(await Bun.file(join(dir, "rival.json")).text()).servers[server.url].bots["rec-caller"].botId;
    const tableId = JSON.parse(await Bun.file(join(dir, "records.json")).text()).servers[server.url].lastTableId;
    expect((await run(["tables", "join", tableId, "--bot", callerId], "rival.json")).code).toBe(0);
    const watched = await run(["watch", "last"]);
    matchId = /match (m_\S+)/.exec(watched.stdout)![1];
  });

  test("ratings: bot names next to their ids, in the list and for one bot", async () => {
    // The applier rates the match a moment after it is recorded (and `watch` sees it end).
    const list = await until(async () => {
      const listed = await run(["ratings"]);
      return listed.stdout.includes("rec-caller") && listed;
    }, 20_000, "both bots rated");
    const rows = list.stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(/^ {2}[12]\. rec-(raiser|caller) \(bot_\w+\) {2}rating .* -?[\d.]+ bb\/100 \[-?[\d.]+, -?[\d.]+\], adjusted -?[\d.]+ \[-?[\d.]+, -?[\d.]+\] \(aivat-2\)  1 match, \d+ hands$/);
    expect((await run(["ratings", "rec-raiser"])).stdout).toMatch(/^rec-raiser \(bot_\w+\) {2}rating /);
  });

  test("matches: the list with names and profits, one bot's, one match, and --json", async () => {
    const list = await run(["matches"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${matchId}  20\\d\\d-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\d+ hands  rec-(raiser|caller) [+-]?\\d+, rec-(raiser|caller) [+-]?\\d+`, "m"));
    expect((await run(["matches", "--bot", "rec-caller"], "rival.json")).stdout).toContain(matchId);
    const one = await run(["matches", matchId]);
    expect(one.stdout).toContain(`match ${matchId} · ended`);
    expect(one.stdout).toMatch(/rec-raiser: \d+ chips/);
    expect(one.stdout).toContain(`hands: bun run cli -- hands ${matchId}`);
    const json = JSON.parse((await run(["matches", matchId, "--json"])).stdout);
    expect(json.matchId).toBe(matchId);
    expect(json.players[0].finalChips + json.players[1].finalChips).toBe(2000);
    const missing = await run(["matches", "m_nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("NOT_FOUND");
  });

  test("hands: readable action by action, own hole cards when logged in, one hand, PHH, paging hint", async () => {
    const dealt = (text: string, bot: string) => text.split("\n").filter((l) => l.includes(`(${bot}) is dealt`)).length;
    const shows = (text: string, bot: string) => text.split("\n").filter((l) => l.includes(`(${bot}) shows`)).length;
    const first = await run(["hands", matchId, "--hand", "1"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^hand 1 · button seat \d · blinds 5\/10 · seat 0 \(rec-\w+\) 1000, seat 1 \(rec-\w+\) 1000$/m);
    expect(first.stdout).toMatch(/hand 1 · seat \d \(rec-\w+\) posts the small blind 5/);
    expect(first.stdout).toMatch(/hand 1 · seat \d \(rec-raiser\) is dealt [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]/);
    expect(first.stdout).toMatch(/hand 1 · stacks: /);
    expect(first.stdout).not.toContain("hand 2 ·");
    // The hand's own page, to open or share.
    expect(first.stdout).toMatch(new RegExp(`^hand 1 · on the web: http://\\S+/matches/${matchId}/hands/1$`, "m"));
    // The owner sees their own bot's cards in every hand, the rival's only where shown down; a stranger only shown cards.
    const owner = (await run(["hands", matchId])).stdout;
    expect(dealt(owner, "rec-raiser")).toBe(6);
    expect(dealt(owner, "rec-caller")).toBe(shows(owner, "rec-caller"));
    const anonymous = await run(["hands", matchId], "anonymous.json");
    expect(anonymous.code).toBe(0);
    expect(dealt(anonymous.stdout, "rec-raiser")).toBe(shows(anonymous.stdout, "rec-raiser"));
    expect(dealt(anonymous.stdout, "rec-caller")).toBe(shows(anonymous.stdout, "rec-caller"));
    const paged = await run(["hands", matchId, "--limit", "2"]);
    expect(paged.stdout).toContain(`more: bun run cli -- hands ${matchId} --after 2`);
    const phh = await run(["hands", matchId, "--phh", "--limit", "1"]);
    expect(phh.stdout).toContain('variant = "NT"');
    expect((await run(["hands"])).code).toBe(2);
  });

  test("stats, leaderboard and transactions", async () => {
    const stats = await run(["stats", "rec-raiser"]);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/^rec-raiser \(bot_\w+\)\n  matches 1 \(won [01]\) · hands \d+/);
    const board = await run(["leaderboard"]);
    expect(board.stdout).toMatch(/^ {2}1\. rec-(raiser|caller) +[+-]?\d+ {2}1 match$/m);
    expect(board.stdout).toMatch(/^ {2}2\. rec-(raiser|caller)/m);
    const ledger = await run(["transactions"]);
    expect(ledger.stdout).toMatch(/faucet +\+10000 {2}balance +10000/);
    expect(ledger.stdout).toMatch(/buy_in +-1000 {2}balance +9000 {2}rec-raiser at tbl_/);
    expect(ledger.stdout).toMatch(/cashout +\+\d+ .* rec-raiser at tbl_/);
    const json = JSON.parse((await run(["transactions", "--json", "--limit", "2"])).stdout);
    expect(json).toHaveLength(2);
    expect((await run(["transactions", "--limit", "2"])).stdout).toContain(`more: bun run cli -- transactions --before ${json[1].transactionId}`);
    expect((await run(["transactions"], "anonymous.json")).stderr).toContain("not logged in");
    expect((await run(["stats", "bot_nope"])).stderr).toContain("NOT_FOUND");
  });
});
