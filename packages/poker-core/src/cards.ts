/**
 * Cards are integers 0..51: id = rank * 4 + suit, rank 0..12 = 2..A, suit 0..3 = c, d, h, s.
 * This is the order of pokerkit's standard deck and phevaluator's card ids.
 */
export type Card = number;

export const RANK_CHARS = "23456789TJQKA";
export const SUIT_CHARS = "cdhs";
export const DECK_SIZE = 52;

export function cardRank(card: Card): number {
  return card >> 2;
}

export function cardSuit(card: Card): number {
  return card & 3;
}

export function makeCard(rank: number, suit: number): Card {
  return rank * 4 + suit;
}

export function isCard(value: unknown): value is Card {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < DECK_SIZE;
}

/** "As" → 51. Accepts upper- or lower-case rank/suit letters; throws on anything else. */
export function parseCard(text: string): Card {
  if (text.length !== 2) throw new Error(`invalid card "${text}"`);
  const rank = RANK_CHARS.indexOf(text[0].toUpperCase());
  const suit = SUIT_CHARS.indexOf(text[1].toLowerCase());
  if (rank < 0 || suit < 0) throw new Error(`invalid card "${text}"`);
  return makeCard(rank, suit);
}

export function formatCard(card: Card): string {
  if (!isCard(card)) throw new Error(`invalid card id ${card}`);
  return RANK_CHARS[cardRank(card)] + SUIT_CHARS[cardSuit(card)];
}

/** A card the reader may not see (a hole card never shown down): PHH writes it "??". */
export const UNKNOWN_CARD = -1;

/** Like formatCards, with "??" for each UNKNOWN_CARD. */
export function formatCardsOrUnknown(cards: ArrayLike<Card>): string {
  let text = "";
  for (let i = 0; i < cards.length; i++) text += cards[i] === UNKNOWN_CARD ? "??" : formatCard(cards[i]);
  return text;
}

/** Parses "AsKd", "As Kd" or "As,Kd" into card ids. */
export function parseCards(text: string): Card[] {
  const compact = text.replace(/[\s,]+/g, "");
  if (compact.length % 2 !== 0) throw new Error(`invalid card list "${text}"`);
  const cards: Card[] = [];
  for (let i = 0; i < compact.length; i += 2) cards.push(parseCard(compact.slice(i, i + 2)));
  return cards;
}

/** Concatenated without separators ("AsKd"), the PHH and pokerkit style. */
export function formatCards(cards: ArrayLike<Card>, separator = ""): string {
  const parts: string[] = [];
  for (let i = 0; i < cards.length; i++) parts.push(formatCard(cards[i]));
  return parts.join(separator);
}

const ORDERED_DECK: readonly Card[] = Array.from({ length: DECK_SIZE }, (_, card) => card);

/** 2c, 2d, 2h, 2s, 3c, … As. */
export function fullDeck(): Card[] {
  return ORDERED_DECK.slice();
}
