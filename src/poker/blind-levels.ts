/**
 * Rising blinds by hand count (a sit-and-go's schedule): which blinds hand n plays at. Pure, and the
 * one definition the runner deals by and the hand codec decodes by, so a stored hand decodes at the
 * blinds it was played at.
 */
export interface BlindLevel {
  /** Hands this level lasts; the last level lasts to the end whatever its count. */
  hands: number;
  smallBlind: number;
  bigBlind: number;
}

/** A match's blinds: fixed, or (with `blindLevels`) a schedule whose first level they are. */
export interface BlindSchedule {
  smallBlind: number;
  bigBlind: number;
  blindLevels?: BlindLevel[];
}

/** The blinds of hand `handNumber` (1-based; voided numbers count, so a resume keeps the schedule). */
export function blindsAt(schedule: BlindSchedule, handNumber: number): { smallBlind: number; bigBlind: number } {
  const levels = schedule.blindLevels;
  if (!levels || levels.length === 0) return { smallBlind: schedule.smallBlind, bigBlind: schedule.bigBlind };
  let upTo = 0;
  for (const level of levels) {
    upTo += level.hands;
    if (handNumber <= upTo) return { smallBlind: level.smallBlind, bigBlind: level.bigBlind };
  }
  const last = levels[levels.length - 1];
  return { smallBlind: last.smallBlind, bigBlind: last.bigBlind };
}

/** The level hand `handNumber` plays at (0-based index into the schedule; 0 without one). */
export function levelAt(schedule: BlindSchedule, handNumber: number): number {
  const levels = schedule.blindLevels ?? [];
  let upTo = 0;
  for (let i = 0; i < levels.length; i++) {
    upTo += levels[i].hands;
    if (handNumber <= upTo) return i;
  }
  return Math.max(0, levels.length - 1);
}
