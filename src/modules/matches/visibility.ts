import { UNKNOWN_CARD } from "@poker-bots/core/cards";
import type { HandEvent } from "../../poker/hand-types";
import type { StoredHand } from "../match-host/hand-history";

/**
 * What a viewer may see of a match: hole cards that were shown down, plus those of the bots the
 * viewer owns. Card rooms and serious arenas publish only what was public at the table; a rival
 * must not read a bot's folded hands (its bluffs and ranges) from the history.
 */
export interface Visibility {
  /** Bots whose hole cards this viewer sees in every hand. */
  ownBots: ReadonlySet<string>;
}

export const PUBLIC: Visibility = { ownBots: new Set() };

/** The hand as this viewer may see it; hidden hole cards become UNKNOWN_CARD. */
export function visibleHand(hand: StoredHand, visibility: Visibility): StoredHand {
  const shown = new Set<number>();
  for (const event of hand.events) if (event.type === "show") shown.add(event.seat);
  const botAt = new Map(hand.players.map((p) => [p.seat, p.botId]));
  const sees = (seat: number) => shown.has(seat) || visibility.ownBots.has(botAt.get(seat)!);
  if (hand.players.every((p) => sees(p.seat))) return hand;
  const events = hand.events.map((event): HandEvent =>
    event.type === "hole_cards" && !sees(event.seat) ? { ...event, cards: event.cards.map(() => UNKNOWN_CARD) } : event,
  );
  return { ...hand, events };
}
