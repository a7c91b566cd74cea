import type { HandState } from "../../poker/hand-types";
import { storedHandOf, type StoredHand } from "../../poker/hand-record";
import { exportPhh, playersInPhhOrder, type ExportableHand } from "../../poker/phh";
import type { SeatRuntime, TableRuntime } from "../tables/runtime";

/** A completed hand as stored and served: who sat where, the hand's rules, every event with every card (src/poker/hand-record.ts). */
export type { StoredHand };

/** The history of a finished hand; PHH text is derived from it when asked for, off the hot path. */
export function handHistory(table: TableRuntime, inPlay: SeatRuntime[], hand: HandState): StoredHand {
  return storedHandOf(table.handNumber, hand, (p) => inPlay[p].botId);
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
