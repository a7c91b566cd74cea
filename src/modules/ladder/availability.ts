/** Seats at a ladder table of each format. */
export const LADDER_SEATS = { "heads-up": 2, "six-max": 6 } as const satisfies Record<string, number>;

/** Why an entered bot does not play now, in words its author can act on (docs/LADDER.md). */
export type PauseReason = "INSUFFICIENT_BALANCE" | "BOT_OFFLINE" | "BOT_RETIRED" | "HOSTED_SEAT_LIMIT";

/** What the rule looks at, read fresh for each decision. */
export interface EntryFacts {
  retired: boolean;
  /** A built-in is always there, and so is a hosted bot (uploaded code); a remote bot only while its socket is open on a live node. */
  builtIn: boolean;
  hosted: boolean;
  connected: boolean;
  /** Its developer's balance. */
  balance: number;
  /** It holds an open seat (at a ladder table or any other): it is busy, not paused. */
  seated: boolean;
  /**
   * Seats its developer's hosted bots may still take under MAX_HOSTED_SEATS_PER_DEVELOPER (docs/HOSTED.md,
   * Limits); absent: no cap. At 0 a hosted bot takes no other seat.
   */
  hostedSeatsLeft?: number;
}

export interface EntryState {
  status: "active" | "paused";
  reason: PauseReason | null;
  /** Active and free: the matchmaker may seat it now. */
  available: boolean;
}

/**
 * Who plays: an entry plays while its bot is in service, its developer can pay the ladder's buy-in
 * (a bot already seated has paid), for a hosted bot while its developer's hosted bots hold fewer
 * seats than MAX_HOSTED_SEATS_PER_DEVELOPER (a bot already seated holds its own), and, for a remote
 * bot, while it is connected to some node (a built-in or a hosted bot needs no connection). A
 * paused entry resumes by itself when the cause goes away (a faucet claim, a reconnect, a match of
 * the developer's hosted bots ending).
 */
export function entryState(facts: EntryFacts, buyIn: number): EntryState {
  if (facts.retired) return { status: "paused", reason: "BOT_RETIRED", available: false };
  if (!facts.seated && facts.balance < buyIn) return { status: "paused", reason: "INSUFFICIENT_BALANCE", available: false };
  if (!facts.seated && facts.hosted && (facts.hostedSeatsLeft ?? Infinity) <= 0) return { status: "paused", reason: "HOSTED_SEAT_LIMIT", available: false };
  if (!facts.builtIn && !facts.hosted && !facts.connected) return { status: "paused", reason: "BOT_OFFLINE", available: false };
  return { status: "active", reason: null, available: !facts.seated };
}
