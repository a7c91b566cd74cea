/**
 * AcpcMatchState's answers (pure: no socket, no clock). An ACPC player works out its turn from the
 * state line alone, so its answer may come before the request does: on a relayed table the
 * opponent's action and the request reach the player's node as separate messages. Such an answer
 * is kept and given to the request when it comes; any other line is ignored, as the dealer does.
 */
import { describe, expect, test } from "bun:test";
import type { ServerMessage } from "@poker-bots/protocol";
import { AcpcMatchState } from "../../src/modules/acpc/match-state";

// Heads-up, blinds 5/10, the button on seat 0; the ACPC seat is seat 1: position 0, the big blind.
const handStarted = (handNumber: number) =>
  ({ type: "hand_started", handNumber, button: 0, smallBlind: 5, bigBlind: 10, yourSeat: 1, holeCards: ["As", "Kd"], seats: [{ seat: 0 }, { seat: 1 }] }) as unknown as ServerMessage;
const action = (handNumber: number, seat: number, name: "call" | "check" | "fold" | "raise", amount: number) =>
  ({ type: "action", handNumber, seat, botId: null, action: name, amount, allIn: false }) as unknown as ServerMessage;
const request = (handNumber: number, requestId: string, legalActions: string[], minRaiseTo: number | null = 20, maxRaiseTo: number | null = 1000) =>
  ({ type: "action_request", requestId, handNumber, legalActions, minRaiseTo, maxRaiseTo }) as unknown as ServerMessage;

/** A seat where the button has limped in hand 1: the line the player sees, and the state. */
function afterLimp(): { state: AcpcMatchState; line: string } {
  const state = new AcpcMatchState();
  expect(state.receive(handStarted(1))).toBeNull();
  expect(state.receive(action(1, 0, "call", 5))).toBeNull();
  const lines = state.take();
  expect(lines).toEqual(["MATCHSTATE:0:0::AsKd|", "MATCHSTATE:0:0:c:AsKd|"]);
  return { state, line: lines.at(-1)! };
}

describe("ACPC answers and their requests", () => {
  test("an answer after its request is the request's action", () => {
    const { state, line } = afterLimp();
    expect(state.receive(request(1, "q1", ["check", "raise"]))).toBeNull();
    expect(state.answer(`${line}:r40`)).toEqual({ requestId: "q1", action: "raise", amount: 40 });
    // Answered once: the same line again is ignored.
    expect(state.answer(`${line}:r40`)).toBeNull();
  });

  test("an answer to the current state before its request is kept and given to the request when it comes", () => {
    const { state, line } = afterLimp();
    expect(state.answer(`${line}:f`)).toBeNull();
    // Folding when checking is free is repaired to a check, by the request's legal actions.
    expect(state.receive(request(1, "q1", ["check", "raise"]))).toEqual({ requestId: "q1", action: "check" });
    // Kept for one request only.
    expect(state.receive(request(1, "q2", ["check", "raise"]))).toBeNull();
  });

  test("an early answer to a state that is not the current one, or to an earlier hand, is ignored", () => {
    const { state } = afterLimp();
    expect(state.answer("MATCHSTATE:0:0:r30:AsKd|:c")).toBeNull();
    expect(state.receive(request(1, "q1", ["check", "raise"]))).toBeNull();

    const next = afterLimp();
    expect(next.state.answer(`${next.line}:c`)).toBeNull();
    expect(next.state.receive(handStarted(2))).toBeNull();
    expect(next.state.receive(request(2, "q2", ["fold", "call", "raise"]))).toBeNull();
  });

  test("after a request the clock answered, the next early answer still reaches its own request", () => {
    const { state } = afterLimp();
    expect(state.receive(request(1, "q1", ["check", "raise"]))).toBeNull();
    // Nobody answered q1: the clock checked for the seat, which closed the preflop; the flop comes.
    expect(state.receive(action(1, 1, "check", 0))).toBeNull();
    expect(state.receive({ type: "street", handNumber: 1, street: "flop", cards: ["2c", "7h", "Jd"], board: ["2c", "7h", "Jd"] } as unknown as ServerMessage)).toBeNull();
    const line = state.take().at(-1)!;
    expect(line).toBe("MATCHSTATE:0:0:cc/:AsKd|/2c7hJd");
    expect(state.answer(`${line}:r30`)).toBeNull();
    expect(state.receive(request(1, "q2", ["check", "raise"], 10, 990))).toEqual({ requestId: "q2", action: "raise", amount: 20 });
  });
});
