import { describe, expect, test } from "bun:test";
import { decodeChunk, encodeChunks, ChunkWriter, NotEncodable, type DecodeContext } from "../../src/poker/hand-codec.ts";
import { fairDeck } from "../../src/poker/fair-deck.ts";
import { startHand, applyActionInPlace } from "../../src/poker/hand.ts";
import { storedHandOf } from "../../src/poker/hand-record.ts";
import { phhOfHands } from "../../src/modules/match-host/hand-history.ts";
import { fullDeck } from "@poker-bots/core/cards";
import { handCorpus, type CorpusMatch } from "./hand-corpus.ts";
import { blindsAt, type BlindLevel } from "../../src/poker/blind-levels.ts";
import { nextButton, seatsInPlay, stacksAfterHand } from "../../src/poker/match.ts";
import { legalActions } from "../../src/poker/hand.ts";

const contextOf = (match: CorpusMatch): DecodeContext => ({
  smallBlind: match.smallBlind,
  bigBlind: match.bigBlind,
  botAt: match.botAt,
  deckOf: (n, cardsNeeded) => fairDeck(match.deckSecret!, match.duplicate ? Math.ceil(n / 2) : n, cardsNeeded),
});
const formatOf = (match: CorpusMatch) => ({ smallBlind: match.smallBlind, bigBlind: match.bigBlind, explicitCards: match.deckSecret === null });

describe("hand codec", () => {
  const corpus = handCorpus();

  test("encode → decode is the identity on every hand of a corpus of every shape, JSON and PHH byte for byte", () => {
    const shapes = { seatCounts: new Set<number>(), sidePots: 0, runOuts: 0, oddChips: 0, voidedGaps: 0, leaves: 0, busts: 0, duplicate: 0, seeded: 0, hands: 0, chunks: 0 };
    let bytes = 0, derivedHands = 0, derivedBytes = 0;
    for (const match of corpus) {
      const chunks = encodeChunks(match.hands, formatOf(match), 300);
      const decoded = chunks.flatMap((chunk) => decodeChunk(chunk.bytes, chunk.first, chunk.last, contextOf(match)));
      expect(decoded.length).toBe(match.hands.length);
      for (let i = 0; i < decoded.length; i++) expect(JSON.stringify(decoded[i])).toBe(JSON.stringify(match.hands[i]));
      const fields = { matchId: "m_corpus", tableId: "tbl_corpus", seatCount: 10, seeded: match.deckSecret === null };
      expect(phhOfHands(fields, decoded)).toBe(phhOfHands(fields, match.hands));
      const size = chunks.reduce((sum, c) => sum + c.bytes.length, 0);
      bytes += size;
      if (match.deckSecret !== null) [derivedHands, derivedBytes] = [derivedHands + match.hands.length, derivedBytes + size];
      shapes.hands += match.hands.length;
      shapes.chunks += chunks.length;
      if (match.duplicate) shapes.duplicate += match.hands.length;
      if (match.deckSecret === null) shapes.seeded += match.hands.length;
      match.hands.forEach((hand, i) => {
        shapes.seatCounts.add(hand.players.length);
        if (hand.pots.length > 1) shapes.sidePots++;
        const lastAction = hand.events.findLastIndex((e) => e.type === "action");
        if (hand.events.some((e, k) => k > lastAction && e.type === "street") && hand.events.some((e) => e.type === "show")) shapes.runOuts++;
        if (hand.pots.some((pot) => new Set(pot.shares).size > 1)) shapes.oddChips++;
        if (hand.players.some((p) => p.finalStack === 0)) shapes.busts++;
        const next = match.hands[i + 1];
        if (next && next.handNumber !== hand.handNumber + 1) shapes.voidedGaps++;
        if (next && hand.players.some((p) => p.finalStack > 0 && !next.players.some((q) => q.seat === p.seat))) shapes.leaves++;
      });
    }
    expect([...shapes.seatCounts].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const key of ["sidePots", "runOuts", "oddChips", "voidedGaps", "leaves", "busts", "duplicate", "seeded"] as const) expect(shapes[key]).toBeGreaterThan(0);
    expect(shapes.hands).toBeGreaterThan(1_000);
    // Decks derived from a secret: only the decisions are stored (a few bytes a hand).
    expect(derivedBytes / derivedHands).toBeLessThan(12);
    console.log(`hand codec corpus: ${shapes.hands} hands in ${shapes.chunks} chunks, ${(bytes / shapes.hands).toFixed(1)} bytes a hand (${(derivedBytes / derivedHands).toFixed(1)} with derived decks)`, { ...shapes, seatCounts: shapes.seatCounts.size });
  });

  test("a chunk that does not decode whole is refused: too short, too long, another version, wrong deck", () => {
    const match = corpus.find((m) => m.deckSecret !== null && m.hands.length > 20)!;
    const [chunk] = encodeChunks(match.hands.slice(0, 20), formatOf(match), 10_000);
    const context = contextOf(match);
    expect(() => decodeChunk(chunk.bytes.slice(0, chunk.bytes.length - 1), chunk.first, chunk.last, context)).toThrow();
    expect(() => decodeChunk(new Uint8Array([...chunk.bytes, 1]), chunk.first, chunk.last, context)).toThrow(/bytes after/);
    expect(() => decodeChunk(new Uint8Array([9, ...chunk.bytes.slice(1)]), chunk.first, chunk.last, context)).toThrow(/version 9/);
    expect(() => decodeChunk(chunk.bytes, chunk.first, chunk.last + 1, context)).toThrow();
    // Another deck replays the same decisions into other hands: not the hands recorded.
    // Another deck replays the same decisions into other hands (or into decisions that no longer fit): never the hands recorded.
    let other: string[] = [];
    try {
      other = decodeChunk(chunk.bytes, chunk.first, chunk.last, { ...context, deckOf: (n, k) => fairDeck("00".repeat(32), n, k) }).map((h) => JSON.stringify(h));
    } catch {
      other = [];
    }
    expect(other).not.toEqual(match.hands.slice(0, 20).map((h) => JSON.stringify(h)));
  });

  test("hands the format cannot hold are refused, and nothing of them is appended", () => {
    const played = startHand({ seats: [{ seatIndex: 0, stack: 100 }, { seatIndex: 1, stack: 100 }], buttonSeatIndex: 0, smallBlind: 1, bigBlind: 2, ante: 1, deck: fullDeck() });
    applyActionInPlace(played, { type: "fold" });
    const withAntes = storedHandOf(1, played, (p) => `bot_${p}`);
    const writer = new ChunkWriter({ smallBlind: 1, bigBlind: 2, explicitCards: false });
    expect(() => writer.append(withAntes)).toThrow(NotEncodable);
    expect(writer.handCount).toBe(0);
    expect(() => new ChunkWriter({ smallBlind: 1, bigBlind: 5, explicitCards: false }).append({ ...withAntes, config: { ...withAntes.config, antes: [0, 0] } })).toThrow(NotEncodable);
  });

  test("rising blinds (a sit-and-go): each hand is encoded and decoded at its own level; version 1 bytes; a format without the schedule refuses them", () => {
    const levels: BlindLevel[] = [{ hands: 3, smallBlind: 5, bigBlind: 10 }, { hands: 4, smallBlind: 20, bigBlind: 40 }, { hands: 1, smallBlind: 100, bigBlind: 200 }];
    const secret = "ab".repeat(32);
    const botAt = (seat: number) => `bot_sng_${seat}`;
    let stacks = [1000, 1000, 1000, 1000];
    let button: number | null = null;
    const hands: ReturnType<typeof storedHandOf>[] = [];
    // Callers to the end: the blinds alone push the stacks down, level by level, until one holds every chip.
    for (let number = 1; seatsInPlay(stacks).length >= 2 && number < 500; number++) {
      button = nextButton(stacks, button);
      const inPlay = seatsInPlay(stacks);
      const state = startHand({ seats: inPlay, buttonSeatIndex: button, ...blindsAt({ smallBlind: 5, bigBlind: 10, blindLevels: levels }, number), deck: fairDeck(secret, number, 2 * inPlay.length + 8) });
      while (!state.finished) {
        const legal = legalActions(state)!;
        applyActionInPlace(state, legal.canCheck ? { type: "check" } : { type: "call" });
      }
      stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
      hands.push(storedHandOf(number, state, (p) => botAt(state.seats[p])));
    }
    expect(new Set(hands.map((h) => h.bigBlind))).toEqual(new Set([10, 40, 200]));
    const format = { smallBlind: 5, bigBlind: 10, blindLevels: levels, explicitCards: false };
    const chunks = encodeChunks(hands, format, 64);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.bytes[0]).toBe(1);
    const context: DecodeContext = { smallBlind: 5, bigBlind: 10, blindLevels: levels, botAt, deckOf: (n, cards) => fairDeck(secret, n, cards) };
    const decoded = chunks.flatMap((chunk) => decodeChunk(chunk.bytes, chunk.first, chunk.last, context));
    expect(decoded.length).toBe(hands.length);
    for (let i = 0; i < hands.length; i++) expect(JSON.stringify(decoded[i])).toBe(JSON.stringify(hands[i]));
    // The same hands at the match's first blinds only: the fourth hand is not encodable there.
    expect(() => encodeChunks(hands, { smallBlind: 5, bigBlind: 10, explicitCards: false }, 64)).toThrow(NotEncodable);
  });
});
