import type { HandConfig, HandEvent, HandState, PotAward } from "../../poker/hand-types";
import { exportPhh, playersInPhhOrder, type ExportableHand } from "../../poker/phh";
import type { SeatRuntime, TableRuntime } from "./runtime";

/** A completed hand as stored: who sat where, the hand's rules, every event with every card. */
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

/** The history of a finished hand; PHH text is derived from it when asked for, off the hot path. */
export function handHistory(table: TableRuntime, inPlay: SeatRuntime[], hand: HandState): StoredHand {
  return {
    handNumber: table.handNumber,
    button: hand.seats[hand.button],
    smallBlind: hand.config.smallBlind,
    bigBlind: hand.config.bigBlind,
    config: hand.config,
    players: hand.seats.map((position, p) => ({
      seat: position,
      botId: inPlay[p].botId,
      startingStack: hand.startingStacks[p],
      finalStack: hand.result!.stacks[p],
    })),
    board: hand.board,
    events: hand.events,
    pots: hand.result!.pots,
  };
}

/** What a PHH file says of the match its hands come from: the specification's fields where one exists, ours `_`-prefixed. */
export interface PhhMatchFields {
  matchId: string;
  tableId?: string;
  seatCount?: number;
  seeded?: boolean;
}

function phhFields(match: PhhMatchFields, handNumber: number): Record<string, unknown> {
  return {
    hand: handNumber,
    ...(match.tableId !== undefined ? { table: match.tableId } : {}),
    ...(match.seatCount !== undefined ? { seat_count: match.seatCount } : {}),
    _match: match.matchId,
    ...(match.seeded ? { _seeded: true } : {}),
  };
}

/** One hand's PHH text, rebuilt from its stored history. */
function phhOfHand(match: PhhMatchFields, hand: StoredHand): string {
  const finished: ExportableHand = {
    seats: hand.players.map((p) => p.seat),
    button: hand.players.findIndex((p) => p.seat === hand.button),
    config: hand.config,
    startingStacks: hand.players.map((p) => p.startingStack),
    stacks: hand.players.map((p) => p.finalStack),
    events: hand.events,
    finished: true,
  };
  const order = playersInPhhOrder(finished);
  return exportPhh(finished, { players: order.map((p) => hand.players[p].botId), ...phhFields(match, hand.handNumber) });
}

/** A PHH hand history set (.phhs): one TOML table per hand, named by its number. */
export function phhOfHands(match: PhhMatchFields, hands: StoredHand[]): string {
  return hands.map((hand) => `[${hand.handNumber}]\n${phhOfHand(match, hand).trimEnd()}\n`).join("\n");
}
