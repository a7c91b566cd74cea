/**
 * The sample hand an upload is smoke-tested on: a match start, a hand start, then a decision
 * before the flop and one on the flop, heads-up, as a remote bot would receive them.
 */
import type { ActionRequestMessage, HandStartedMessage, MatchStartedMessage, SeatState } from "@poker-bots/sdk/messages";

const seats = (hero: Partial<SeatState>, villain: Partial<SeatState>): SeatState[] => [
  { seat: 0, botId: "sample-hero", stack: 990, bet: 0, committed: 10, folded: false, allIn: false, ...hero },
  { seat: 1, botId: "sample-villain", stack: 980, bet: 0, committed: 20, folded: false, allIn: false, ...villain },
];

const config = { buyIn: 1_000, smallBlind: 10, bigBlind: 20, maxPlayers: 2, maxHands: 100, actionTimeoutMs: 1_000 };

export function sampleMatchStarted(): MatchStartedMessage {
  const players = [
    { seat: 0, botId: "sample-hero", stack: 1_000 },
    { seat: 1, botId: "sample-villain", stack: 1_000 },
  ];
  return { type: "match_started", tableId: "sample-table", matchId: "sample-match", config, seeded: false, deckCommitment: null, yourSeat: 0, seats: players };
}

export function sampleHandStarted(): HandStartedMessage {
  return { type: "hand_started", tableId: "sample-table", matchId: "sample-match", handNumber: 1, button: 0, smallBlind: 10, bigBlind: 20, yourSeat: 0, holeCards: ["Ah", "Kh"], seats: seats({}, {}) };
}

/** A decision; `street` "preflop" (call 10 more, or raise) or "flop" (check or bet). */
export function sampleRequest(street: "preflop" | "flop" = "preflop", requestId = `sample-${street}`, nowMs = Date.now()): ActionRequestMessage {
  const preflop = street === "preflop";
  return {
    type: "action_request",
    requestId,
    tableId: "sample-table",
    matchId: "sample-match",
    handNumber: 1,
    street,
    board: preflop ? [] : ["Kd", "7c", "2s"],
    holeCards: ["Ah", "Kh"],
    pot: preflop ? 30 : 40,
    seats: preflop ? seats({ bet: 10 }, { bet: 20 }) : seats({ stack: 980, committed: 20 }, {}),
    yourSeat: 0,
    toCall: preflop ? 10 : 0,
    minRaiseTo: preflop ? 40 : 20,
    maxRaiseTo: preflop ? 1_000 : 980,
    legalActions: preflop ? ["fold", "call", "raise"] : ["check", "raise"],
    deadline: new Date(nowMs + 1_000).toISOString(),
    timeBankMs: 0,
  };
}
