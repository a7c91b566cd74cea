/**
 * A sit-and-go's rules (docs/COMPETITIONS.md), pure: the default blind schedule, what a schedule
 * may be, the safety cap on hands, and how places follow from a finished match's hands.
 */
import type { BlindLevel } from "../../poker/blind-levels";
import type { StoredHand } from "../../poker/hand-record";
import { errors } from "../../lib/errors";

/** The match ends here at the latest; each bot then cashes out the chips it holds, and places follow chips. */
export const SIT_AND_GO_HAND_CAP = 2_000;
export const MAX_BLIND_LEVELS = 50;

/** The default schedule's big blinds, as shares of the buy-in (a level every 10 hands; the last lasts). */
const DEFAULT_BIG_BLIND_SHARES = [0.02, 0.03, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5];
export const DEFAULT_LEVEL_HANDS = 10;

/**
 * The documented default: ten levels of 10 hands, big blinds 2 %, 3 %, 4 %, 6 %, 8 %, 10 %, 15 %,
 * 20 %, 30 % and 50 % of the buy-in (at least 2), small blinds half the big (at least 1).
 */
export function defaultBlindLevels(buyIn: number): BlindLevel[] {
  return DEFAULT_BIG_BLIND_SHARES.map((share) => {
    const bigBlind = Math.max(2, Math.floor(buyIn * share));
    return { hands: DEFAULT_LEVEL_HANDS, smallBlind: Math.max(1, Math.floor(bigBlind / 2)), bigBlind };
  });
}

/** A schedule a table can deal: blinds positive, small ≤ big, the first big blind within the buy-in. */
export function refuseBadLevels(levels: BlindLevel[], buyIn: number): void {
  if (levels.length === 0 || levels.length > MAX_BLIND_LEVELS) throw errors.validation(`blindLevels: 1 to ${MAX_BLIND_LEVELS} levels`, { field: "blindLevels" });
  levels.forEach((level, i) => {
    if (level.smallBlind > level.bigBlind) throw errors.validation(`blindLevels[${i}]: smallBlind must not exceed bigBlind`, { field: `blindLevels[${i}]` });
  });
  if (levels[0].bigBlind > buyIn) throw errors.validation("blindLevels[0]: the first big blind must not exceed the buy-in", { field: "blindLevels[0]" });
}

export interface Place {
  botId: string;
  place: number;
  /** What the bot's seat was paid at the end: the chips it held (0 for every busted bot). */
  cashout: number;
}

/**
 * Places of a finished sit-and-go, from its hands and what each seat was paid. A bot still holding
 * chips at the end (the winner of a freezeout; everyone at the hand cap) places by chips. A busted
 * bot places by the hand it busted in (later is better); bots busted in the same hand place by the
 * chips they started that hand with (more is better), and equal stacks share the place.
 */
export function placesOf(hands: StoredHand[], cashouts: Map<string, number>): Place[] {
  const bustedAt = new Map<string, { hand: number; startingStack: number }>();
  for (const hand of hands) {
    for (const player of hand.players) if (player.finalStack === 0 && !bustedAt.has(player.botId)) bustedAt.set(player.botId, { hand: hand.handNumber, startingStack: player.startingStack });
  }
  const keyOf = (botId: string): [number, number, number] => {
    const bust = bustedAt.get(botId);
    return [cashouts.get(botId)!, bust ? bust.hand : Number.MAX_SAFE_INTEGER, bust ? bust.startingStack : 0];
  };
  const better = (a: [number, number, number], b: [number, number, number]) => a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2])));
  const bots = [...cashouts.keys()];
  return bots
    .map((botId) => ({ botId, place: 1 + bots.filter((other) => better(keyOf(other), keyOf(botId))).length, cashout: cashouts.get(botId)! }))
    .sort((a, b) => a.place - b.place || a.botId.localeCompare(b.botId));
}
