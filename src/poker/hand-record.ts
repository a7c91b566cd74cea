/**
 * A finished hand as the service serves it (GET /api/matches/:id/hands, PHH, the ratings): who
 * sat where, the hand's rules, every event with every card. Built in one place, from the engine's
 * state, both when the hand is played and when a stored hand is decoded (hand-codec.ts), so the
 * two are the same object, key for key.
 */
import type { HandConfig, HandEvent, HandState, PotAward } from "./hand-types.ts";

export interface StoredHand {
  handNumber: number;
  /** Seat of the button. */
  button: number;
  smallBlind: number;
  bigBlind: number;
  config: HandConfig;
  players: Array<{ seat: number; botId: string; startingStack: number; finalStack: number }>;
  board: number[];
  events: HandEvent[];
  pots: PotAward[];
}

/** The record of a finished hand; `botIdOf(p)` names the bot of player p (table order). */
export function storedHandOf(handNumber: number, hand: HandState, botIdOf: (player: number) => string): StoredHand {
  return {
    handNumber,
    button: hand.seats[hand.button],
    smallBlind: hand.config.smallBlind,
    bigBlind: hand.config.bigBlind,
    config: hand.config,
    players: hand.seats.map((seat, p) => ({
      seat,
      botId: botIdOf(p),
      startingStack: hand.startingStacks[p],
      finalStack: hand.result!.stacks[p],
    })),
    board: hand.board,
    events: hand.events,
    pots: hand.result!.pots,
  };
}
