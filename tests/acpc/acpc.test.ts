import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { auditLedger } from "../../src/modules/credits/audit";
import { parseGameDefinition, randomAction, runAcpcPlayer, seeded, type GameDefinition } from "../support/acpc-player";
import { until } from "../support/nodes";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(180_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("acpc", { FAUCET_AMOUNT: "100000000", ACPC_PORT_TTL_MS: "1500", TIME_BANK_MS: "0", TIME_BANK_REFILL_MS: "0", TIME_BANK_CAP_MS: "0" });
});
afterAll(() => server.close());

const STACK = 1000;

interface HistoryHand {
  handNumber: number;
  button: number;
  players: { seat: number; botId: string }[];
  events: { type: string; seat?: number; action?: string; amount?: number }[];
}

/** A hand history's betting in the ACPC's notation (raises to the hand's total), written from the history's own format. */
function bettingOfHistory(hand: HistoryHand): string {
  const committed = new Map<number, number>();
  let before = new Map<number, number>();
  const rounds: string[] = [""];
  for (const event of hand.events) {
    if (event.type === "blind") committed.set(event.seat!, (committed.get(event.seat!) ?? 0) + event.amount!);
    else if (event.type === "street") {
      rounds.push("");
      before = new Map(committed);
    } else if (event.type === "action") {
      const seat = event.seat!;
      if (event.action === "fold") rounds[rounds.length - 1] += "f";
      else if (event.action === "raise") {
        committed.set(seat, (before.get(seat) ?? 0) + event.amount!);
        rounds[rounds.length - 1] += `r${committed.get(seat)}`;
      } else {
        committed.set(seat, (committed.get(seat) ?? 0) + event.amount!);
        rounds[rounds.length - 1] += "c";
      }
    }
  }
  return rounds.join("/");
}

async function resetTable(token: string, players: number, maxHands: number, actionTimeoutMs = 5000) {
  const table = await server.api("POST", "/api/tables", { token, body: { maxPlayers: players, maxHands, buyIn: 1_000_000, smallBlind: 5, bigBlind: 10, resetStacks: STACK, actionTimeoutMs } });
  expect(table.status).toBe(201);
  return table.body.tableId as string;
}

async function openPort(token: string, botId: string) {
  const answer = await server.api("POST", `/api/bots/${botId}/acpc`, { token });
  expect(answer.status).toBe(201);
  return answer.body as { host: string; port: number; gameDefinition: string; expiresAt: string };
}

async function allHands(matchId: string, token: string): Promise<HistoryHand[]> {
  const hands: HistoryHand[] = [];
  for (let after = 0; ; ) {
    const page = await server.api("GET", `/api/matches/${matchId}/hands?limit=200&after=${after}`, { token });
    hands.push(...page.body.hands);
    if (page.body.hands.length < 200) return hands;
    after = hands.at(-1)!.handNumber;
  }
}

/** The last state of each hand the client saw, by hand number (0-based). */
function finalStates(states: string[]): Map<number, string> {
  const last = new Map<number, string>();
  for (const state of states) last.set(Number(state.split(":")[2]), state);
  return last;
}

async function playMatch(players: number, acpcSeats: number, hands: number) {
  const dev = await registerWithCredits(server, `acpc-${players}`);
  const tableId = await resetTable(dev.token, players, hands);
  const acpcBots: string[] = [];
  for (let i = 0; i < acpcSeats; i++) acpcBots.push((await createBot(server, dev.token, `acpc-${players}-${i}`)).botId);
  const logs: { botId: string; log: Awaited<ReturnType<typeof runAcpcPlayer>> }[] = [];
  let game: GameDefinition | undefined;
  for (const [i, botId] of acpcBots.entries()) {
    expect((await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId } })).status).toBe(201);
    const port = await openPort(dev.token, botId);
    game = parseGameDefinition(port.gameDefinition);
    expect(game).toEqual({ players, stack: STACK, blinds: players === 2 ? [10, 5] : [5, 10, ...new Array(players - 2).fill(0)], firstPlayer: players === 2 ? [2, 1, 1, 1] : [3, 1, 1, 1] });
    const random = seeded(100 + i);
    logs.push({ botId, log: await runAcpcPlayer(port.host, port.port, game, (state) => randomAction(state.turn!, random)) });
  }
  // The players greet before the match starts: wait until the gateway has them.
  for (const { botId } of logs) await until(async () => server.app.services.gateway.isConnected(botId), 5_000, "the ACPC player greeted");
  for (let i = acpcSeats; i < players; i++) {
    const house = await createBot(server, dev.token, `house-${players}-${i}`, "random");
    expect((await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: house.botId } })).status).toBe(201);
  }
  await server.app.services.host.settled();
  const match = (await server.api("GET", `/api/matches?botId=${acpcBots[0]}`)).body[0];
  expect(match.handsPlayed).toBe(hands);
  const history = await allHands(match.matchId, dev.token);
  expect(history).toHaveLength(hands);
  let answersChecked = 0;
  let raises = 0;
  let showdowns = 0;
  for (const { botId, log } of logs) {
    const finals = finalStates(log.states);
    expect(finals.size).toBe(hands);
    // The hand histories agree with what the client saw: every hand's betting, as the client's last state of it.
    for (const hand of history) {
      const final = finals.get(hand.handNumber - 1)!;
      expect(final.split(":")[3]).toBe(bettingOfHistory(hand));
      // Hole cards: its own always, an opponent's only when shown down.
      const shownHoles = final.split(":")[4]!.split("/")[0]!.split("|").filter((cards) => cards !== "").length;
      const mySeat = hand.players.find((p) => p.botId === botId)!.seat;
      const opponentsShown = new Set(hand.events.filter((e) => e.type === "show" && e.seat !== mySeat).map((e) => e.seat)).size;
      expect(shownHoles).toBe(1 + opponentsShown);
      showdowns += opponentsShown > 0 ? 1 : 0;
    }
    // Every answer was played as sent: the hand's betting continues with it.
    for (const answer of log.answers) {
      const [, , handNumber, betting] = answer.state.split(":");
      const final = finals.get(Number(handNumber))!.split(":")[3]!;
      expect(final.startsWith(betting + answer.action)).toBe(true);
      answersChecked += 1;
      if (answer.action.startsWith("r")) raises += 1;
    }
  }
  expect(answersChecked).toBeGreaterThan(hands);
  expect(showdowns).toBeGreaterThan(0);
  expect(raises).toBeGreaterThan(hands / 4);
  const summary = await server.api("GET", `/api/matches/${match.matchId}`);
  expect(summary.body.players.reduce((sum: number, p: { finalChips: number }) => sum + p.finalChips, 0)).toBe(1_000_000 * players);
  expect((await auditLedger(server.database.db)).problems).toEqual([]);
  return { answersChecked, raises, logs };
}

function tryConnect(hostname: string, port: number): Promise<"connected" | "refused"> {
  return Bun.connect({ hostname, port, socket: { data() {}, close() {}, error() {} } }).then(
    (socket) => {
      socket.end();
      return "connected" as const;
    },
    () => "refused" as const,
  );
}

describe("ACPC players on one-time TCP ports", () => {
  test("the port needs a seat at a reset-stacks table; not the owner: 403", async () => {
    const dev = await registerWithCredits(server, "acpc-refusals");
    const other = await registerWithCredits(server, "acpc-refusals-other");
    const bot = await createBot(server, dev.token, "acpc-unseated");
    const unseated = await server.api("POST", `/api/bots/${bot.botId}/acpc`, { token: dev.token });
    expect(unseated.status).toBe(409);
    const plain = await server.api("POST", "/api/tables", { token: dev.token, body: { maxPlayers: 2 } });
    await server.api("POST", `/api/tables/${plain.body.tableId}/join`, { token: dev.token, body: { botId: bot.botId } });
    const notReset = await server.api("POST", `/api/bots/${bot.botId}/acpc`, { token: dev.token });
    expect(notReset.status).toBe(409);
    expect(notReset.body.error.message).toContain("reset-stacks");
    expect((await server.api("POST", `/api/bots/${bot.botId}/acpc`, { token: other.token })).status).toBe(403);
    expect((await server.api("POST", `/api/bots/${bot.botId}/acpc`)).status).toBe(401);
  });

  test("heads-up: a clean-room ACPC client plays 300 hands of random legal actions; histories agree; the ledger holds", async () => {
    const { answersChecked, raises } = await playMatch(2, 1, 300);
    console.log(`ACPC heads-up: ${answersChecked} answers checked, ${raises} raises`);
  });

  test("three-handed: two ACPC clients and a built-in, 200 hands", async () => {
    const { answersChecked, raises } = await playMatch(3, 2, 200);
    console.log(`ACPC three-handed: ${answersChecked} answers checked, ${raises} raises`);
  });

  test("bad lines are ignored as the dealer ignores them; a silent player is answered by the action clock; the port is single-use and expires", async () => {
    const dev = await registerWithCredits(server, "acpc-bad");
    const tableId = await resetTable(dev.token, 2, 6, 200);
    const bot = await createBot(server, dev.token, "acpc-bad");
    await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: bot.botId } });
    const port = await openPort(dev.token, bot.botId);
    const game = parseGameDefinition(port.gameDefinition);
    let turns = 0;
    const bad = [
      (line: string) => `${line}:x`, // no such action
      (line: string) => `${line.replace(/:(\d+):/, (_, n) => `:${Number(n) + 1}:`)}:c`, // a state it was not sent
      () => "GARBAGE", // no state at all
      () => null, // silence
    ];
    const player = await runAcpcPlayer(port.host, port.port, game, (_state, line) => bad[turns++ % bad.length]!(line));
    await until(async () => server.app.services.gateway.isConnected(bot.botId), 5_000, "the ACPC player greeted");
    await until(async () => (await server.api("GET", `/api/bots/${bot.botId}`, { token: dev.token })).body.connection === "acpc", 5_000, "the owner's view says acpc");
    // Single use: the port stopped listening at its first connection.
    expect(await tryConnect(port.host, port.port)).toBe("refused");
    const house = await createBot(server, dev.token, "acpc-bad-house", "caller");
    await server.api("POST", `/api/tables/${tableId}/join`, { token: dev.token, body: { botId: house.botId } });
    await server.app.services.host.settled();
    const match = (await server.api("GET", `/api/matches?botId=${bot.botId}`)).body[0];
    expect(match.handsPlayed).toBe(6);
    expect(turns).toBeGreaterThanOrEqual(6);
    expect(player.answers).toEqual([]);
    // Every turn was answered by the clock: check, else fold (against a caller, the hand ends at the bot's fold or goes on with checks).
    const history = await allHands(match.matchId, dev.token);
    const finals = finalStates(player.states);
    for (const hand of history) expect(finals.get(hand.handNumber - 1)!.split(":")[3]).toBe(bettingOfHistory(hand));
    expect(history.flatMap((hand) => hand.events.filter((e) => e.type === "action" && hand.players.find((p) => p.botId === bot.botId)!.seat === e.seat).map((e) => e.action)).every((a) => a === "check" || a === "fold")).toBe(true);
    player.socket.end();
    // An unused port expires: nobody can connect after ACPC_PORT_TTL_MS.
    const table2 = await resetTable(dev.token, 2, 1);
    const idle = await createBot(server, dev.token, "acpc-expired");
    await server.api("POST", `/api/tables/${table2}/join`, { token: dev.token, body: { botId: idle.botId } });
    const expiring = await openPort(dev.token, idle.botId);
    expect(Date.parse(expiring.expiresAt) - Date.now()).toBeLessThanOrEqual(1500);
    // Probing would take the port: the expiry is observed on the service's side, then from outside.
    expect(server.app.services.acpcPorts.hasOpenPort(idle.botId)).toBe(true);
    await until(async () => !server.app.services.acpcPorts.hasOpenPort(idle.botId), 10_000, "the unused port expired");
    expect(await tryConnect(expiring.host, expiring.port)).toBe("refused");
  });
});
