/**
 * Why an active entry waits (docs/LADDER.md, "Who plays"): a pure function of every entry of its
 * format as read now. NO_OPPONENT when fewer bots it may meet are free than a table needs, with how
 * many are, and whether the house's bots are why (out of credits, or this developer's daily limit).
 */
import type { LadderFormat } from "../../db/schema";
import { entryState, LADDER_SEATS, type EntryFacts, type PauseReason } from "./availability";

/** Why an entry does not play now: paused (availability.ts), or active with nobody to meet. */
export type EntryReason = PauseReason | "NO_OPPONENT";

/** The house's bots will not meet this entry now: why, and until when. */
export interface HouseUnavailable {
  reason: "HOUSE_OUT_OF_CREDITS" | "HOUSE_DAILY_LIMIT";
  until: string;
  /** HOUSE_DAILY_LIMIT: what the developer won from the house over the window. */
  won: number | null;
}

/** What the rule needs of an entry. */
export interface WaitingEntry {
  botId: string;
  format: LadderFormat;
  developerId: string;
  house: boolean;
  facts: EntryFacts;
}

/** The house as the views see it: who has won its daily limit, when it can pay again. */
export interface HouseSituation {
  house: string | null;
  limited: Map<string, { won: number; until: Date }>;
  /** Its next faucet claim (null: not known, e.g. the public standings). */
  paysAgainAt: Date | null;
}

export interface Waiting {
  opponentsAvailable: number;
  noOpponent: boolean;
  houseUnavailable: HouseUnavailable | null;
}

/** How many buy-ins a balance pays for now (a developer's seats this round, the house's seats beside a newcomer). */
export function buyInsAffordable(balance: number, buyIn: number): number {
  return Math.floor(balance / buyIn);
}

/**
 * For every entry (keyed "botId|format"): how many bots it may meet are free now, counted as the
 * seats they could fill beside it (one per other developer with a free entry, each free house bot
 * the house can pay for, none of the house's for a developer past its daily limit; a house entry
 * needs a developer at its table), and whether that is too few for a table.
 */
export function whoWaits(entries: WaitingEntry[], buyIn: number, situation: HouseSituation): Map<string, Waiting> {
  const states = new Map(entries.map((e) => [e, entryState(e.facts, buyIn)]));
  const houseBalance = entries.find((e) => e.house)?.facts.balance ?? 0;
  const affordable = buyInsAffordable(houseBalance, buyIn);
  const result = new Map<string, Waiting>();
  for (const entry of entries) {
    const seatsBeside = LADDER_SEATS[entry.format] - 1;
    const free = entries.filter((o) => o !== entry && o.format === entry.format && o.botId !== entry.botId && states.get(o)!.available);
    const limited = situation.limited.get(entry.developerId);
    const developers = new Set(free.filter((o) => !o.house && o.developerId !== entry.developerId && !(entry.house && situation.limited.has(o.developerId))).map((o) => o.developerId));
    const houseFree = free.filter((o) => o.house).length;
    const opponentsAvailable = entry.house
      ? developers.size === 0
        ? 0
        : developers.size + Math.min(houseFree, Math.max(0, affordable - 1))
      : developers.size + (limited ? 0 : Math.min(houseFree, affordable));
    const state = states.get(entry)!;
    const noOpponent = state.available && opponentsAvailable < seatsBeside;
    let houseUnavailable: HouseUnavailable | null = null;
    if (!entry.house && situation.house !== null) {
      if (limited) houseUnavailable = { reason: "HOUSE_DAILY_LIMIT", until: limited.until.toISOString(), won: limited.won };
      // Out of credits is why only when it waits, the house has bots in the format, and it cannot pay the seats developers leave.
      else if (noOpponent && situation.paysAgainAt && entries.some((o) => o.house && o.format === entry.format) && affordable < seatsBeside - developers.size) {
        houseUnavailable = { reason: "HOUSE_OUT_OF_CREDITS", until: situation.paysAgainAt.toISOString(), won: null };
      }
    }
    result.set(`${entry.botId}|${entry.format}`, { opponentsAvailable, noOpponent, houseUnavailable });
  }
  return result;
}
