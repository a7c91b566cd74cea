import type { Message } from "./ws-bot";

/**
 * What remote bots saw of a match, from every message they received (over every connection):
 * the test's witness that no deck is dealt twice and that nothing shown is silently unsaid.
 */
export interface Witnessed {
  /** Hand numbers each bot was dealt into (hand_started), in the order seen, repeats kept. */
  dealtTo: Map<string, number[]>;
  /** Every number a match_resumed or a snapshot told any bot was void. */
  announcedVoid: Set<number>;
  /** How many match_resumed messages the bots got. */
  resumptions: number;
}

export function witness(bots: Array<{ name: string; messages: Message[] }>, matchId: string): Witnessed {
  const dealtTo = new Map<string, number[]>();
  const announcedVoid = new Set<number>();
  let resumptions = 0;
  for (const bot of bots) {
    const dealt: number[] = [];
    for (const m of bot.messages) {
      if (m.matchId !== matchId) continue;
      if (m.type === "hand_started") dealt.push(m.handNumber);
      // A bot connected at the resumption hears match_resumed; one that reconnects after it, a snapshot.
      if (m.type === "match_resumed") resumptions += 1;
      if (m.type === "match_resumed" || m.type === "snapshot") for (const n of m.voidedHands) announcedVoid.add(n);
    }
    dealtTo.set(bot.name, dealt);
  }
  return { dealtTo, announcedVoid, resumptions };
}

/** Hand numbers some bot was dealt into more than once: a deck it saw, dealt again. */
export function redealt(seen: Witnessed): number[] {
  const twice = new Set<number>();
  for (const numbers of seen.dealtTo.values()) {
    const once = new Set<number>();
    for (const n of numbers) (once.has(n) ? twice : once).add(n);
  }
  return [...twice].sort((a, b) => a - b);
}

/** Hands a bot was dealt into that are neither recorded nor announced void: silently unsaid. */
export function unsaid(seen: Witnessed, recorded: Set<number>): number[] {
  const missing = new Set<number>();
  for (const numbers of seen.dealtTo.values()) for (const n of numbers) if (!recorded.has(n) && !seen.announcedVoid.has(n)) missing.add(n);
  return [...missing].sort((a, b) => a - b);
}
