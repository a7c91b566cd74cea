/**
 * A match's recorded hands, from what is stored to what is served: compact chunks decoded with
 * the match's blinds, bots and decks, and hands still stored as JSON (before issue 35) parsed, the
 * two merged in number order. Pure (no database): the ratings' worker thread runs it too.
 */
import type { TableConfig } from "../../db/schema";
import { fairDeck } from "../../poker/fair-deck";
import { decodeChunk, type ChunkFormat, type DecodeContext } from "../../poker/hand-codec";
import type { StoredHand } from "../../poker/hand-record";
import { dealOfHand } from "./deals";
import type { BlindLevel } from "../../poker/blind-levels";

/** What decoding a match's hands needs of the match: its blinds, its bots by seat, how its decks are dealt. */
export interface MatchDeal {
  matchId: string;
  smallBlind: number;
  bigBlind: number;
  /** A sit-and-go's rising blinds (each hand decodes at its own level). */
  blindLevels?: BlindLevel[];
  /** A duplicate match recorded before issue 32 (one match, hand n dealt from deal ⌈n / 2⌉: deals.ts `dealOfHand`). */
  legacyDuplicate: boolean;
  /** The deck secret (revealed, or unsealed by the host); null: the hands carry their cards. */
  deckSecret: string | null;
  /** The bot at each seat (matches.seat_bots). */
  seatBots: Array<string | null>;
}

/** One stored chunk: hands first … last. */
export interface StoredChunk {
  first: number;
  last: number;
  bytes: Uint8Array;
}

/** A match's hands as the database holds them: chunks, and rows still in JSON (their text). */
export interface RecordedHands {
  chunks: StoredChunk[];
  legacy: Array<{ number: number; json: string }>;
}

export function matchDealOf(
  match: { id: string; config: TableConfig; seatBots: Array<string | null> | null; twinMatchId?: string | null },
  deckSecret: string | null,
): MatchDeal {
  return {
    matchId: match.id,
    smallBlind: match.config.smallBlind,
    bigBlind: match.config.bigBlind,
    ...(match.config.blindLevels ? { blindLevels: match.config.blindLevels } : {}),
    // A copy of a duplicate pair deals hand n from deck n; only the old one-match model did otherwise.
    legacyDuplicate: match.config.duplicate === true && (match.twinMatchId ?? null) === null,
    deckSecret,
    seatBots: match.seatBots ?? [],
  };
}

/** How a match's hands are written: its decks derive from its secret, or each hand carries its cards. */
export function chunkFormatOf(deal: Pick<MatchDeal, "smallBlind" | "bigBlind" | "blindLevels" | "deckSecret">): ChunkFormat {
  return { smallBlind: deal.smallBlind, bigBlind: deal.bigBlind, blindLevels: deal.blindLevels, explicitCards: deal.deckSecret === null };
}

export function decodeContextOf(deal: MatchDeal): DecodeContext {
  const { deckSecret, legacyDuplicate, matchId } = deal;
  return {
    smallBlind: deal.smallBlind,
    bigBlind: deal.bigBlind,
    blindLevels: deal.blindLevels,
    botAt(seat) {
      const botId = deal.seatBots[seat];
      if (!botId) throw new Error(`match ${matchId}: no bot recorded at seat ${seat}`);
      return botId;
    },
    deckOf(handNumber, cardsNeeded) {
      if (deckSecret === null) throw new Error(`match ${matchId}: its hands need its deck secret`);
      return fairDeck(deckSecret, dealOfHand(handNumber, legacyDuplicate), cardsNeeded);
    },
  };
}

/**
 * The hands numbered above `after`, in order, at most `limit`: chunks decoded, JSON rows parsed. A
 * number read in both forms (its conversion committed between two reads of a page) is taken once.
 */
export function decodeRecorded(deal: MatchDeal, recorded: RecordedHands, after = 0, limit = Number.POSITIVE_INFINITY): StoredHand[] {
  const context = decodeContextOf(deal);
  const hands = new Map<number, StoredHand>();
  for (const chunk of recorded.chunks) {
    for (const hand of decodeChunk(chunk.bytes, chunk.first, chunk.last, context)) if (hand.handNumber > after) hands.set(hand.handNumber, hand);
  }
  for (const row of recorded.legacy) if (row.number > after && !hands.has(row.number)) hands.set(row.number, JSON.parse(row.json) as StoredHand);
  const ordered = [...hands.values()].sort((a, b) => a.handNumber - b.handNumber);
  return ordered.length > limit ? ordered.slice(0, limit) : ordered;
}

/** One match's hands as stored, with what decodes them (a duplicate pair is rated from both copies). */
export interface StoredMatchPart {
  deal: MatchDeal;
  recorded: RecordedHands;
}

/** The hands of several matches' parts, decoded, in the order given. */
export function decodeParts(parts: StoredMatchPart[]): StoredHand[] {
  return parts.flatMap(({ deal, recorded }) => decodeRecorded(deal, recorded));
}

/**
 * The whole deck (52 cards) each hand was dealt from, board cards never dealt included (the ratings'
 * baseline replays the deal: src/poker/baseline.ts; the flop's luck reads past it:
 * src/poker/flop-luck.ts), or null for every hand of a match recorded without a
 * deck secret. A deck that does not give the history's hole cards (a record older than its secret)
 * leaves the whole part without decks.
 */
export function decksOf(deal: MatchDeal, hands: StoredHand[]): Array<number[] | null> {
  const { deckSecret } = deal;
  if (deckSecret === null) return hands.map(() => null);
  // All 52 cards: the flop's luck reads alternative flops past what a hand deals (poker/flop-luck.ts).
  const decks = hands.map((hand) => fairDeck(deckSecret, dealOfHand(hand.handNumber, deal.legacyDuplicate)));
  return hands.every((hand, i) => dealtFrom(hand, decks[i])) ? decks : hands.map(() => null);
}

/** Does the history show the hole cards and board this deck deals (hand.ts: round-robin from the button's left, burn and turn)? */
function dealtFrom(hand: StoredHand, deck: number[]): boolean {
  const n = hand.players.length;
  const first = (hand.players.findIndex((p) => p.seat === hand.button) + 1) % n;
  const slots = [1, 2, 3, 5, 7];
  if (hand.board.some((card, i) => deck[2 * n + slots[i]] !== card)) return false;
  return hand.events.every((event) => {
    if (event.type !== "hole_cards") return true;
    const order = (hand.players.findIndex((p) => p.seat === event.seat) - first + n) % n;
    return event.cards[0] === deck[order] && event.cards[1] === deck[n + order];
  });
}

/** decodeParts with each hand's deck beside it (decksOf), aligned. */
export function decodePartsWithDecks(parts: StoredMatchPart[]): { hands: StoredHand[]; decks: Array<number[] | null> } {
  const hands: StoredHand[] = [], decks: Array<number[] | null> = [];
  for (const { deal, recorded } of parts) {
    const part = decodeRecorded(deal, recorded);
    hands.push(...part);
    decks.push(...decksOf(deal, part));
  }
  return { hands, decks };
}
