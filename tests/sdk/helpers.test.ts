import { describe, expect, test } from "bun:test";
import {
  backoffDelay,
  BotSession,
  call,
  check,
  decisionState,
  defineBot,
  equity,
  fold,
  handStrength,
  legalize,
  memoryLogger,
  parseServerMessage,
  positionOf,
  potOdds,
  raiseTo,
  type ActionRequestMessage,
  type BotMessage,
  type DecisionState,
} from "@poker-bots/sdk";

function request(overrides: Partial<ActionRequestMessage> = {}): ActionRequestMessage {
  return {
    type: "action_request",
    requestId: "req_1",
    tableId: "tbl_1",
    matchId: "m_1",
    handNumber: 1,
    street: "preflop",
    board: [],
    holeCards: ["Ah", "7d"],
    pot: 15,
    seats: [
      { seat: 0, botId: "bot_a", stack: 995, bet: 5, committed: 5, folded: false, allIn: false },
      { seat: 1, botId: "bot_b", stack: 990, bet: 10, committed: 10, folded: false, allIn: false },
    ],
    yourSeat: 0,
    toCall: 5,
    minRaiseTo: 20,
    maxRaiseTo: 1000,
    legalActions: ["fold", "call", "raise"],
    deadline: "2026-11-20T23:39:16.070Z",
    timeBankMs: 10000,
    ...overrides,
  };
}

const stateOf = (overrides: Partial<ActionRequestMessage> = {}): DecisionState =>
  decisionState(request(overrides), { botId: "bot_a", matchId: "m_1", config: null, handNumber: 1, button: 0, history: [] });

describe("helpers", () => {
  test("pot odds: the share of the final pot a call costs", () => {
    expect(potOdds({ pot: 100, toCall: 50 })).toBeCloseTo(1 / 3);
    expect(potOdds({ pot: 100, toCall: 0 })).toBe(0);
  });

  test("hand strength goes through the evaluator after the flop, and names pre-flop hands", () => {
    const flop = handStrength({ holeCards: ["Ks", "Kd"], board: ["7c", "Kh", "2h"] });
    expect(flop.category).toBe("three_of_a_kind");
    expect(flop.description).toBe("three kings, 7-2 kickers");
    const better = handStrength({ holeCards: ["7s", "7d"], board: ["7c", "Kh", "Kd"] });
    expect(better.value!).toBeGreaterThan(flop.value!);
    expect(handStrength({ holeCards: ["As", "Ks"], board: [] })).toMatchObject({ value: null, description: "A-K suited", preflopScore: 12 });
    expect(handStrength({ holeCards: ["Qh", "Qd"], board: [] })).toMatchObject({ category: "one_pair", description: "pocket queens", preflopScore: 14 });
  });

  test("equity: aces win about 85 % heads-up, less against more hands; seeded; a board everyone plays is a split", () => {
    const aces = equity({ holeCards: ["As", "Ad"], board: [] }, { iterations: 4000, seed: 1 });
    expect(aces).toBeGreaterThan(0.82);
    expect(aces).toBeLessThan(0.88);
    expect(equity({ holeCards: ["As", "Ad"], board: [] }, { iterations: 4000, seed: 1 })).toBe(aces);
    expect(equity({ holeCards: ["As", "Ad"], board: [] }, { iterations: 4000, opponents: 4, seed: 1 })).toBeLessThan(0.65);
    expect(equity({ holeCards: ["2c", "3d"], board: ["As", "Ks", "Qs", "Js", "Ts"] }, { iterations: 200 })).toBe(0.5);
    expect(equity({ holeCards: ["7c", "2d"], board: ["Ac", "Ad", "Ah", "Kc", "Kd"] }, { iterations: 200, opponents: 2 })).toBeLessThan(1 / 3 + 0.01);
  });

  test("positions around the button", () => {
    expect(positionOf([0, 1], 0, 0)).toBe("button");
    expect(positionOf([0, 1], 0, 1)).toBe("big_blind");
    const six = [0, 1, 2, 3, 4, 5];
    expect([1, 2, 3, 4, 5, 0].map((s) => positionOf(six, 0, s))).toEqual(["small_blind", "big_blind", "early", "middle", "late", "button"]);
    expect(positionOf(six, null, 1)).toBeNull();
  });

  test("the decision state carries the request, made friendly", () => {
    const state = stateOf();
    expect(state.legal.has("raise")).toBe(true);
    expect(state.legal.has("check")).toBe(false);
    expect(state).toMatchObject({ stack: 995, bet: 5, committed: 5, toCall: 5, isButton: true, position: "button" });
    expect(state.opponents.map((s) => s.seat)).toEqual([1]);
  });
});

describe("legalize: what decide() returns becomes a legal answer", () => {
  test("nothing or garbage: check when free, else fold, with a warning", () => {
    const log = memoryLogger();
    expect(legalize(undefined, stateOf(), log)).toEqual(fold());
    expect(legalize({ action: "shove" }, stateOf({ toCall: 0, legalActions: ["fold", "check", "raise"] }), log)).toEqual(check());
    expect(log.entries.map((e) => [e.level, e.event, e.botId, e.handNumber])).toEqual([
      ["warn", "illegal_action", "bot_a", 1],
      ["warn", "illegal_action", "bot_a", 1],
    ]);
  });

  test("raises are clamped to the legal range; an impossible raise falls back", () => {
    const log = memoryLogger();
    expect(legalize(raiseTo(5), stateOf(), log)).toEqual(raiseTo(20));
    expect(legalize(raiseTo(5000.7), stateOf(), log)).toEqual(raiseTo(1000));
    expect(legalize(raiseTo(Number.NaN), stateOf(), log)).toEqual(fold());
    expect(legalize(raiseTo(100), stateOf({ legalActions: ["fold", "call"], minRaiseTo: null, maxRaiseTo: null }), log)).toEqual(fold());
  });

  test("call with nothing to call is a check; check facing a bet is a fold", () => {
    const log = memoryLogger();
    expect(legalize(call(), stateOf({ toCall: 0, legalActions: ["fold", "check"] }), log)).toEqual(check());
    expect(legalize(check(), stateOf(), log)).toEqual(fold());
  });
});

describe("BotSession", () => {
  test("tracks the match and hand, calls decide with the context, answers with the requestId", async () => {
    const sent: BotMessage[] = [];
    const seen: DecisionState[] = [];
    const bot = defineBot({ decide: (s) => (seen.push(s), raiseTo(60)) });
    const session = new BotSession(bot, (m) => sent.push(m), memoryLogger());
    await session.handle({ type: "welcome", botId: "bot_a", name: "a", protocolVersion: 1, serverTime: "" });
    const config = { buyIn: 1000, smallBlind: 5, bigBlind: 10, maxPlayers: 2, maxHands: 5, actionTimeoutMs: 2000 };
    await session.handle({ type: "match_started", tableId: "tbl_1", matchId: "m_1", config, seeded: false, deckCommitment: null, yourSeat: 0, seats: [] });
    await session.handle({ type: "hand_started", tableId: "tbl_1", matchId: "m_1", handNumber: 1, button: 0, smallBlind: 5, bigBlind: 10, yourSeat: 0, holeCards: ["Ah", "7d"], seats: [] });
    await session.handle({ type: "action", tableId: "tbl_1", matchId: "m_1", handNumber: 1, seat: 0, botId: "bot_a", action: "small_blind", amount: 5, allIn: false });
    await session.handle({ type: "action", tableId: "tbl_1", matchId: "m_1", handNumber: 1, seat: 1, botId: "bot_b", action: "big_blind", amount: 10, allIn: false });
    await session.handle(request());
    expect(sent).toEqual([{ type: "action", requestId: "req_1", action: "raise", amount: 60 }]);
    expect(seen[0]).toMatchObject({ botId: "bot_a", matchId: "m_1", bigBlind: 10, button: 0, isButton: true });
    expect(seen[0].history.map((a) => a.action)).toEqual(["small_blind", "big_blind"]);
  });

  test("a decide() that throws is logged and answered with the fallback", async () => {
    const sent: BotMessage[] = [];
    const log = memoryLogger();
    const session = new BotSession({ decide: () => { throw new Error("boom"); } }, (m) => sent.push(m), log, "bot_a");
    await session.handle(request({ toCall: 0, legalActions: ["fold", "check", "raise"] }));
    expect(sent).toEqual([{ type: "action", requestId: "req_1", action: "check" }]);
    expect(log.entries.find((e) => e.event === "decide_failed")).toMatchObject({ level: "error", error: "boom", handNumber: 1 });
  });
});

test("backoff: exponential with jitter, capped", () => {
  expect(backoffDelay(0, 250, 10_000, () => 0)).toBe(125);
  expect(backoffDelay(0, 250, 10_000, () => 1)).toBe(250);
  expect(backoffDelay(3, 250, 10_000, () => 1)).toBe(2000);
  for (let attempt = 0; attempt < 50; attempt++) expect(backoffDelay(attempt)).toBeLessThanOrEqual(10_000);
  expect(backoffDelay(40, 250, 10_000, () => 0)).toBe(5000);
});

test("parsing server frames", () => {
  expect(parseServerMessage('{"type":"pong","at":"x"}')).toEqual({ type: "pong", at: "x" });
  expect(parseServerMessage("not json")).toBeNull();
  expect(parseServerMessage('{"type":"nope"}')).toBeNull();
  expect(parseServerMessage("[1]")).toBeNull();
});
