import { fullDeck, parseCards } from "@poker-bots/core/cards";
import { applyActionInPlace, legalActions, startHand, type StartHandOptions } from "../../src/poker/hand.ts";
import type { HandState, PlayerAction } from "../../src/poker/hand-types.ts";

/**
 * A deck that deals the given hole cards (by player index, table order) and board; other cards in
 * deck order. Mirrors the engine's dealing: round-robin from the seat left of the button, burns.
 */
export function riggedDeck(playerCount: number, button: number, holes: (string | null)[], board = ""): number[] {
  const deck = new Array<number>(52).fill(-1);
  holes.forEach((text, p) => {
    if (!text) return;
    const order = (p - button - 1 + playerCount) % playerCount;
    const [first, second] = parseCards(text);
    deck[order] = first;
    deck[playerCount + order] = second;
  });
  const slots = [1, 2, 3, 5, 7].map((i) => 2 * playerCount + i);
  parseCards(board).forEach((card, i) => (deck[slots[i]] = card));
  const rest = fullDeck().filter((c) => !deck.includes(c));
  return deck.map((c) => (c >= 0 ? c : rest.shift()!));
}

export function table(stacks: number[], button: number, rest: Partial<StartHandOptions> = {}): HandState {
  return startHand({
    seats: stacks.map((stack, seatIndex) => ({ seatIndex, stack })),
    buttonSeatIndex: button,
    smallBlind: 1,
    bigBlind: 2,
    deck: fullDeck(),
    ...rest,
  });
}

/** Applies actions, expecting each to name the seat that is to act: [seat, action]. */
export function play(state: HandState, steps: [number, PlayerAction["type"], number?][]): HandState {
  for (const [seat, type, amount] of steps) {
    const legal = legalActions(state);
    if (!legal || legal.actor !== seat) throw new Error(`expected seat ${seat} to act, engine says ${legal?.actor}`);
    const result = applyActionInPlace(state, { type, amount });
    if (!result.ok) throw new Error(`seat ${seat} ${type} ${amount ?? ""}: ${result.reason}`);
  }
  return state;
}
