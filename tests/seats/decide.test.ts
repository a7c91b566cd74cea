import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeLocalSandbox, configureLocalSandbox, openLocalHostedPlayers } from "../../src/cli/hosted";
import { ManualClock } from "../../src/lib/clock";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand";
import type { HandState } from "../../src/poker/hand-types";
import { TableRuntime } from "../../src/modules/tables/runtime";
import { actionRequestMessage } from "../../src/modules/protocol/messages";
import { BotGateway } from "../../src/modules/protocol/gateway";
import { decide, type DecideRules } from "../../src/modules/seats/decide";
import { hostedRequestIds, HostedSandboxSeat } from "../../src/modules/seats/hosted";
import type { Decided, Seat, Turn } from "../../src/modules/seats/model";
import { RemoteSeat } from "../../src/modules/seats/remote";
import { FailureCount } from "../../src/modules/seats/rules";
import { bundleFixture } from "../hosted/support";

/** decide(): one owner of the deadline and time bank, the legality check, the fallback and the failure rule, for every kind of seat. */

const table = new TableRuntime("tbl_seat", "dev_seat", new Date(0), { buyIn: 1_000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 10, actionTimeoutMs: 1_000 });
table.beginMatch("m_seat", 0);

/** A heads-up hand: the button (small blind) faces the big blind; after its call the big blind may check. */
function hand(bigBlindMayCheck: boolean): HandState {
  const state = startHand({ seats: [{ seatIndex: 0, stack: 1_000 }, { seatIndex: 1, stack: 1_000 }], buttonSeatIndex: 0, smallBlind: 5, bigBlind: 10, deck: Array.from({ length: 52 }, (_, i) => i) });
  if (bigBlindMayCheck) expect(applyActionInPlace(state, { type: "call" }).ok).toBe(true);
  return state;
}

function turnOf(state: HandState, timeBankMs: number, leaving = false): Turn {
  const legal = legalActions(state)!;
  return {
    state,
    legal,
    actionTimeoutMs: table.config.actionTimeoutMs,
    timeBankMs,
    leaving: () => leaving,
    request: (requestId, deadlineMs) => actionRequestMessage(table, state, legal, requestId, deadlineMs, timeBankMs),
  };
}

describe("a remote seat (a socket of the gateway)", () => {
  const clock = new ManualClock();
  const gateway = new BotGateway(clock);
  const sent: any[] = [];
  const socket = { id: "ws_seat", send: (data: string) => void sent.push(JSON.parse(data)), close: () => {} };
  const silences: string[] = [];
  const rules: DecideRules = { clock, timeBank: { initialMs: 0, refillMs: 100, capMs: 500 }, onSilence: (botId) => void silences.push(botId) };
  gateway.connect("bot_remote", socket, { type: "welcome", botId: "bot_remote", name: "remote", protocolVersion: 1, serverTime: new Date(clock.now()).toISOString() });
  const seat = new RemoteSeat("bot_remote", gateway);
  const lastRequest = () => sent.filter((m) => m.type === "action_request").at(-1);

  test("an illegal answer gets ILLEGAL_ACTION and the request stays open; a legal one in the time bank is played and spends it", async () => {
    const decided = decide(seat, turnOf(hand(false), 200), rules) as Promise<Decided>;
    const request = lastRequest();
    expect(Date.parse(request.deadline)).toBe(clock.now() + 1_200);
    clock.advance(1_100);
    gateway.receive(socket, { type: "action", requestId: request.requestId, action: "check" });
    expect(sent.at(-1)).toMatchObject({ type: "error", code: "ILLEGAL_ACTION", requestId: request.requestId });
    gateway.receive(socket, { type: "action", requestId: request.requestId, action: "call" });
    // 100 ms of the 200 ms bank spent, 100 refilled.
    expect(await decided).toEqual({ action: { type: "call" }, timeBankMs: 200 });
    expect(silences).toEqual([]);
  });

  test("silence until the deadline: the fallback (check when free, else fold), the bank emptied, the silence heard", async () => {
    for (const [free, fallback] of [[true, "check"], [false, "fold"]] as const) {
      const decided = decide(seat, turnOf(hand(free), 300), rules) as Promise<Decided>;
      clock.advance(1_300);
      expect(await decided).toEqual({ action: { type: fallback }, timeBankMs: 0 });
    }
    expect(silences).toEqual(["bot_remote", "bot_remote"]);
  });

  test("a seat that is leaving is not asked: the fallback at once, its bank untouched", () => {
    const before = sent.length;
    expect(decide(seat, turnOf(hand(true), 300, true), rules)).toEqual({ action: { type: "check" }, timeBankMs: 300 });
    expect(sent.length).toBe(before);
  });
});

describe("a hosted seat (the sandbox, the failure rule)", () => {
  beforeAll(() => configureLocalSandbox({ limits: { loadMs: 15_000 } }));
  afterAll(async () => {
    await closeLocalSandbox();
    configureLocalSandbox({});
  });

  test("a bot that throws: the fallback, counted; at the third failure folded for the rest of the match, even when checking is free, without being run", async () => {
    const { players, seats } = await openLocalHostedPlayers([{ botId: "bot_hosted", code: await bundleFixture("function-constructor") }], { tableId: table.tableId, matchId: () => table.matchId }, Date.UTC(2030, 0, 1));
    try {
      const seat: Seat = new HostedSandboxSeat("bot_hosted", players, hostedRequestIds());
      const rules: DecideRules = { clock: new ManualClock(), timeBank: { initialMs: 0, refillMs: 0, capMs: 0 }, onSilence: () => {} };
      const played: string[] = [];
      for (const free of [true, false, true, true]) played.push((await decide(seat, turnOf(hand(free), 0), rules)).action.type);
      expect(played).toEqual(["check", "fold", "fold", "fold"]);
      const sandboxSeat = seats.get("bot_hosted")!;
      expect(sandboxSeat.disabled).toBe(true);
      expect(sandboxSeat.failures).toBe(3);
      expect(sandboxSeat.logs().filter((line) => line.kind === "disabled")).toHaveLength(1);
    } finally {
      await players.close();
    }
  });

  test("the failure rule itself: exhausted at the limit, once", () => {
    const count = new FailureCount(3);
    expect([count.record(), count.record(), count.record(), count.record()]).toEqual([false, false, true, false]);
    expect(count.exhausted).toBe(true);
    expect(count.count).toBe(4);
  });
});
