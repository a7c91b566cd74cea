/**
 * A corpus of matches played the way the match host plays them (moving button, busts, leaves
 * between hands, voided hand numbers after a resume), with fuzzing bots that make exact minimum
 * raises, all-ins, odd raise sizes, calls, checks and folds: side pots, all-in run-outs and split
 * pots with odd chips come up. Each hand is the record the server stores (storedHandOf).
 */
import { seededRng, shuffleDeck, shuffleInPlace, uniformInt, type Rng } from "@poker-bots/core/rng";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import type { LegalActions, PlayerAction } from "../../src/poker/hand-types.ts";
import { storedHandOf, type StoredHand } from "../../src/poker/hand-record.ts";
import { nextButton, seatsInPlay, stacksAfterHand } from "../../src/poker/match.ts";
import { fairDeck } from "../../src/poker/fair-deck.ts";

function fuzzingAction(legal: LegalActions, rng: Rng): PlayerAction {
  const roll = uniformInt(rng, 40);
  if (legal.canRaise && roll < 5) return { type: "raise", amount: legal.minRaiseTo };
  if (legal.canRaise && roll < 6) return { type: "raise", amount: legal.maxRaiseTo };
  if (legal.canRaise && roll < 9) return { type: "raise", amount: legal.minRaiseTo + uniformInt(rng, Math.min(legal.maxRaiseTo - legal.minRaiseTo + 1, 50 * legal.minRaiseTo)) };
  if (roll < 16) return legal.canCheck ? { type: "check" } : { type: "fold" };
  return legal.canCheck ? { type: "check" } : { type: "call" };
}

export interface CorpusMatch {
  /** How the decks were dealt: from a secret (duplicate: deal ⌈n/2⌉), or from a seeded PRNG. */
  deckSecret: string | null;
  duplicate: boolean;
  smallBlind: number;
  bigBlind: number;
  botAt: (seat: number) => string;
  hands: StoredHand[];
}

/** One match: `players` seats, up to `hands` hands; now and then a seat leaves, now and then numbers are voided (a resume). */
export function corpusMatch(rng: Rng, label: string, players: number, hands: number, kind: "secret" | "duplicate" | "seeded"): CorpusMatch {
  const bigBlind = 2 + 2 * uniformInt(rng, 5);
  const smallBlind = uniformInt(rng, 8) === 0 ? bigBlind : uniformInt(rng, 4) === 0 ? 1 : bigBlind / 2;
  const deckSecret = kind === "seeded" ? null : Buffer.from(Array.from({ length: 32 }, () => uniformInt(rng, 256))).toString("hex");
  const duplicate = kind === "duplicate";
  const seedRng = seededRng(`${label}-deck`);
  const maxPlayers = Math.max(players, 2 + uniformInt(rng, 9));
  let stacks = new Array<number>(maxPlayers).fill(0);
  const seats = shuffleInPlace([...Array(maxPlayers).keys()], rng).slice(0, players);
  for (const seat of seats) stacks[seat] = bigBlind * (1 + uniformInt(rng, [10, 40, 150, 400][uniformInt(rng, 4)]));
  const botAt = (seat: number) => `bot_${label}_${seat}`;
  let button: number | null = null;
  let number = 0;
  const played: StoredHand[] = [];
  while (played.length < hands && seatsInPlay(stacks).length >= 2) {
    // A leave between hands: the seat's chips go with it.
    if (uniformInt(rng, 25) === 0 && seatsInPlay(stacks).length > 2) {
      const inPlay = seatsInPlay(stacks);
      stacks[inPlay[uniformInt(rng, inPlay.length)].seatIndex] = 0;
    }
    // A resume voids the numbers its host had reserved (a duplicate match restarts on an odd number).
    if (uniformInt(rng, 30) === 0) {
      number += 1 + uniformInt(rng, 5);
      if (duplicate && number % 2 === 1) number += 1;
    }
    number += 1;
    button = nextButton(stacks, button);
    const inPlay = seatsInPlay(stacks);
    const cardsNeeded = 2 * inPlay.length + 8;
    const deck =
      deckSecret === null
        ? shuffleDeck(seedRng)
        : fairDeck(deckSecret, duplicate ? Math.ceil(number / 2) : number, cardsNeeded);
    const state = startHand({ seats: inPlay, buttonSeatIndex: button, smallBlind, bigBlind, deck });
    while (!state.finished) applyActionInPlace(state, fuzzingAction(legalActions(state)!, rng));
    stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
    played.push(storedHandOf(number, state, (p) => botAt(state.seats[p])));
  }
  return { deckSecret, duplicate, smallBlind, bigBlind, botAt, hands: played };
}

/** Every shape of hand the codec must hold: every seat count from 2 to 10, each kind of deal. */
export function handCorpus(matchesPerShape = 9, handsPerMatch = 80): CorpusMatch[] {
  const rng = seededRng("hand-codec-corpus");
  const matches: CorpusMatch[] = [];
  for (let players = 2; players <= 10; players++) {
    for (let m = 0; m < matchesPerShape; m++) {
      const kind = (["secret", "seeded", "duplicate"] as const)[m % 3];
      matches.push(corpusMatch(rng, `${players}-${m}`, players, handsPerMatch, kind === "duplicate" && players !== 2 ? "secret" : kind));
    }
  }
  // Duplicate matches are heads-up: a few more of them.
  for (let m = 0; m < matchesPerShape; m++) matches.push(corpusMatch(rng, `dup-${m}`, 2, handsPerMatch, "duplicate"));
  return matches;
}
