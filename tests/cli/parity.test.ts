import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { closeLocalSandbox, configureLocalSandbox } from "../../src/cli/hosted";
import { loadPlayers, playLocalMatch, type LocalMatchResult } from "../../src/cli/local-match";
import { hostedLogs } from "../../src/db/schema";
import { useHarness } from "../support/app";
import { ROOT } from "../support/process";
import { storeVersion } from "../hosted/play-support";
import { bundleFile } from "../hosted/support";

/**
 * One seat, three places (issue 34): the same bot file, on the same seeded deal, meets the same rules
 * as a file under `cli play`, as `hosted:` under `cli play`, and hosted on the service. The bot
 * (fixtures/parity-bot.ts) answers illegally, then late, then correctly, then loops; each spin is
 * SPIN_MS (2 s) against a 400 ms timeout, a margin a loaded machine does not close: in the sandbox a
 * spin never ends at all (the bot's clock stands still within a call), so it is stopped at its
 * budget, counted in its own run time.
 *
 * The opponent raises whenever it may, so every request the bot gets faces a bet: its no-answer
 * fallback is fold, which is also what a hosted seat plays once its failures are exhausted (a file
 * under `cli play` is a remote seat: it has no failure count, as a remote bot on the service has none).
 */
setDefaultTimeout(120_000);

const BOT = "tests/cli/fixtures/parity-bot.ts";
const SEED = "one-seat-parity";
const HANDS = 5;
const TIMEOUT_MS = 400;

// No time bank: the budget is the timeout, as `cli play --timeout` means.
const h = useHarness("seat_parity", { TIME_BANK_MS: "0", TIME_BANK_CAP_MS: "0", TIME_BANK_REFILL_MS: "0" }, { beforeClose: (harness) => harness.app.services.sandbox.close() });

beforeAll(() => configureLocalSandbox({ limits: { loadMs: 15_000 } }));
afterAll(async () => {
  await closeLocalSandbox();
  configureLocalSandbox({});
});

type Hand = { events: Array<{ type: string; seat?: number; action?: string; amount?: number }> };

/** What each seat did, hand by hand, blinds included: "seat:action amount". */
function actionsOf(histories: Hand[]): string[][] {
  return histories.map((hand) => hand.events.filter((e) => e.type === "action").map((e) => `${e.seat}:${e.action} ${e.amount}`));
}

/** The bot's own actions (seat 0), blinds left out. */
function botActions(histories: Hand[]): string[] {
  return actionsOf(histories).flat().filter((a) => a.startsWith("0:") && !a.includes("blind"));
}

async function playLocally(spec: string): Promise<LocalMatchResult> {
  const players = await loadPlayers([spec, "raiser"], ROOT);
  return playLocalMatch(players, { seed: SEED, hands: HANDS, timeoutMs: TIMEOUT_MS, buyIn: 1_000, smallBlind: 5, bigBlind: 10 });
}

describe("one seat: a bot file meets the same rules under cli play (a file, hosted:) and hosted on the service", () => {
  test("illegal, late, correct, then looping: the same action sequence on a seeded deal, three ways", async () => {
    const asFile = await playLocally(`./${BOT}`);
    const asHosted = await playLocally(`hosted:./${BOT}`);

    // The service: the same file uploaded (its bundled version stored), seated first at a seeded table.
    const dev = await h.fundedDeveloper();
    const created = await h.call("POST", "/api/bots", { token: dev.token, body: { name: "parity" } });
    expect(created.status).toBe(201);
    const botId = created.body.botId as string;
    await storeVersion(h.database.db, botId, 1, await bundleFile(`${ROOT}/${BOT}`));
    const raiser = (await h.call("POST", "/api/bots", { token: dev.token, body: { name: "raiser", strategy: "raiser" } })).body.botId as string;
    const table = await h.call("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2, maxHands: HANDS, actionTimeoutMs: TIMEOUT_MS, seed: SEED } });
    expect(table.status).toBe(201);
    for (const id of [botId, raiser]) expect((await h.call("POST", `/api/tables/${table.body.tableId}/join`, { token: dev.token, body: { botId: id } })).status).toBe(201);
    await h.app.services.host.settled();
    const finished = (await h.call("GET", `/api/tables/${table.body.tableId}`)).body;
    expect(finished.status).toBe("finished");
    const service = (await h.call("GET", `/api/matches/${finished.matchId}/hands`)).body.hands as Hand[];

    for (const played of [asFile.histories, asHosted.histories, service]) expect(played).toHaveLength(HANDS);
    // Each rule met, in order: illegal (the fallback, fold), late (fold), correct (its raise), looping (fold) …
    const sequence = botActions(asFile.histories as Hand[]);
    expect(sequence.slice(0, 2)).toEqual(["0:fold 0", "0:fold 0"]);
    expect(sequence[2]).toMatch(/^0:raise \d+$/);
    expect(sequence.slice(3).every((a) => a === "0:fold 0")).toBe(true);
    expect(sequence.length).toBeGreaterThanOrEqual(4);
    // … and the same actions, hand by hand, for both seats, three ways.
    expect(actionsOf(asHosted.histories as Hand[])).toEqual(actionsOf(asFile.histories as Hand[]));
    expect(actionsOf(service)).toEqual(actionsOf(asFile.histories as Hand[]));

    // The rules that fired: the file's late answers were timeouts (its late one and each loop) …
    expect(asFile.players[0].timeouts).toBe(sequence.length - 2);
    // … the hosted seat's failures were the illegal answer and two timeouts, then it was folded for the match, locally and on the service.
    const localFailures = asHosted.players[0].hostedLogs!.filter((line) => line.kind !== undefined).map((line) => line.kind);
    expect(localFailures).toEqual(["illegal", "timeout", "timeout", "disabled"]);
    const rows = await h.database.db.select().from(hostedLogs).where(and(eq(hostedLogs.botId, botId), eq(hostedLogs.matchId, finished.matchId))).orderBy(asc(hostedLogs.id));
    expect(rows.filter((row) => row.failure !== null).map((row) => row.failure)).toEqual(["illegal", "timeout", "timeout", "disabled"]);
  });
});
