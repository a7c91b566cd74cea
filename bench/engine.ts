// Simulated 6-max hands per second: random legal play, one thread, no I/O, full showdowns.
import { applyActionInPlace, legalActions, startHand } from "../src/poker/hand.ts";
import { nextButton, stacksAfterHand } from "../src/poker/match.ts";
import { seededRng, uniformInt } from "@poker-bots/core/rng";
import { randomLegalAction } from "../src/poker/simulate.ts";

const SECONDS = 5;
const rng = seededRng("bench:engine");

// The harness should not allocate per hand on its own account (the engine's garbage is what is measured):
// a counting loop instead of stacks.filter(…).length, and one deck buffer instead of a new 52-card array.
function seatsWithChips(stacks: number[]): number {
  let count = 0;
  for (let seatIndex = 0; seatIndex < stacks.length; seatIndex++) if (stacks[seatIndex] > 0) count++;
  return count;
}

/** shuffleDeck(rng, cardsNeeded) into a reused buffer: the same draws, so the same decks. startHand copies what it keeps. */
const deck: number[] = [];
function shuffledDeck(cardsNeeded: number): number[] {
  for (let card = 0; card < 52; card++) deck[card] = card;
  for (let i = 0; i < Math.min(cardsNeeded, 51); i++) {
    const j = i + uniformInt(rng, 52 - i);
    const held = deck[i];
    deck[i] = deck[j];
    deck[j] = held;
  }
  return deck;
}

function playHands(deadline: number): number {
  let hands = 0;
  let stacks = [1000, 1000, 1000, 1000, 1000, 1000];
  let button: number | null = null;
  while (performance.now() < deadline) {
    for (let batch = 0; batch < 1000; batch++) {
      if (seatsWithChips(stacks) < 2) stacks = [1000, 1000, 1000, 1000, 1000, 1000];
      button = nextButton(stacks, button);
      const seats = [];
      for (let seatIndex = 0; seatIndex < 6; seatIndex++) if (stacks[seatIndex] > 0) seats.push({ seatIndex, stack: stacks[seatIndex] });
      const state = startHand({ seats, buttonSeatIndex: button, smallBlind: 5, bigBlind: 10, deck: shuffledDeck(2 * seats.length + 8) });
      while (!state.finished) applyActionInPlace(state, randomLegalAction(legalActions(state)!, rng));
      stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
      hands++;
    }
  }
  return hands;
}

playHands(performance.now() + 1000); // warm-up
const start = performance.now();
const hands = playHands(start + SECONDS * 1000);
const handsPerSec = hands / ((performance.now() - start) / 1000);
const microsPerHand = 1e6 / handsPerSec;
console.log(`${hands} hands in ${SECONDS} s: ${Math.round(handsPerSec).toLocaleString()} hands/s, ${microsPerHand.toFixed(2)} µs per hand`);
console.log(JSON.stringify({ handsPerSec: Math.round(handsPerSec), microsPerHand: Number(microsPerHand.toFixed(2)) }));
