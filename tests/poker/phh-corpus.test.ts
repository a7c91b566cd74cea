import { expect, test } from "bun:test";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import type { HandState, LegalActions, PlayerAction } from "../../src/poker/hand-types.ts";
import { nextButton, seatsInPlay, stacksAfterHand } from "../../src/poker/match.ts";
import { exportPhh, parsePhh, playersInPhhOrder, replayPhh } from "../../src/poker/phh.ts";
import { seededRng, shuffleDeck, uniformInt, type Rng } from "@poker-bots/core/rng";
import { formatCards, UNKNOWN_CARD } from "@poker-bots/core/cards";

/**
 * The fuzzing bots of the pokerkit replay: exact minimum raises, short all-ins, calls, checks and
 * folds, so the rule corners (short blinds, covered bets, no-choice checks, run-outs, split pots) come up.
 */
function fuzzingAction(legal: LegalActions, rng: Rng): PlayerAction {
  const roll = uniformInt(rng, 10);
  if (legal.canRaise && roll < 2) return { type: "raise", amount: legal.minRaiseTo };
  if (legal.canRaise && roll < 3) return { type: "raise", amount: legal.maxRaiseTo };
  if (roll < 4) return legal.canCheck ? { type: "check" } : { type: "fold" };
  return legal.canCheck ? { type: "check" } : { type: "call" };
}

function playMatch(rng: Rng, players: number, bigBlinds: number, hands: number): HandState[] {
  const bigBlind = 2 + 2 * uniformInt(rng, 3);
  // Equal blinds now and then (heads-up, see the README's PHH notes).
  const smallBlind = uniformInt(rng, 10) === 0 ? bigBlind : bigBlind / 2;
  let stacks = Array.from({ length: players }, () => bigBlind * (1 + uniformInt(rng, bigBlinds)));
  let button: number | null = null;
  const played: HandState[] = [];
  for (let h = 0; h < hands && seatsInPlay(stacks).length >= 2; h++) {
    button = nextButton(stacks, button);
    const state = startHand({ seats: seatsInPlay(stacks), buttonSeatIndex: button, smallBlind, bigBlind, deck: shuffleDeck(rng) });
    while (!state.finished) applyActionInPlace(state, fuzzingAction(legalActions(state)!, rng));
    stacks = stacksAfterHand(stacks, state.seats, state.result!.stacks);
    played.push(state);
  }
  return played;
}

/** The hand's events with seats renumbered as a replay numbers them (PHH order: p1 = seat 0). */
function inPhhSeats(state: HandState): HandState["events"] {
  const order = playersInPhhOrder(state);
  const seatOf = new Map(order.map((p, i) => [state.seats[p], i]));
  const seat = (s: number) => seatOf.get(s)!;
  return state.events.map((event) => {
    switch (event.type) {
      case "pot_awarded":
        return { ...event, eligible: event.eligible.map(seat).sort((a, b) => a - b), winners: event.winners.map(seat) };
      case "hand_finished":
        return { ...event, stacks: order.map((p) => event.stacks[p]) };
      case "street":
        return event;
      default:
        return { ...event, seat: seat(event.seat) };
    }
  });
}

/** Hole cards are dealt as one block; the engine lists it in table order, which a replay renumbers. */
function holeCardsBySeat(events: HandState["events"]): HandState["events"] {
  const first = events.findIndex((e) => e.type === "hole_cards");
  const block = events.filter((e) => e.type === "hole_cards").sort((a, b) => (a as { seat: number }).seat - (b as { seat: number }).seat);
  return [...events.slice(0, first), ...block, ...events.slice(first + block.length)];
}

test("a corpus of seeded matches covering every corner round-trips through PHH to identical states", () => {
  const rng = seededRng("phh-corpus");
  const corners = { noChoiceCheck: 0, showdownBeforeRunOut: 0, coveredNoDecision: 0, oddChipSplit: 0, shortBigBlind: 0, hands: 0 };
  for (let m = 0; m < 150; m++) {
    const players = 2 + uniformInt(rng, 9);
    const bigBlinds = [8, 30, 100, 300][uniformInt(rng, 4)];
    for (const state of playMatch(rng, players, bigBlinds, 40)) {
      corners.hands++;
      const text = exportPhh(state);
      const phh = parsePhh(text);
      const replayed = replayPhh(phh);
      expect(holeCardsBySeat(replayed.state.events)).toEqual(holeCardsBySeat(inPhhSeats(state)));
      expect(parsePhh(exportPhh(replayed.state)).actions).toEqual(phh.actions);
      expect(replayed.finishingStacks).toEqual(phh.finishing_stacks!);
      const actions = phh.actions;
      const playerActions = state.events.filter((e) => e.type === "action").length;
      const writtenPlayerActions = actions.filter((a) => /^p\d+ (f|cc|cbr)/.test(a)).length;
      if (writtenPlayerActions > playerActions) corners.noChoiceCheck++;
      const firstShow = actions.findIndex((a) => / sm/.test(a));
      if (firstShow >= 0 && actions.slice(firstShow).some((a) => a.startsWith("d db"))) corners.showdownBeforeRunOut++;
      if (state.events.some((e) => e.type === "uncalled_returned") && playerActions === 0) corners.coveredNoDecision++;
      if (state.result!.pots.some((p) => new Set(p.shares).size > 1)) corners.oddChipSplit++;
      if (state.events.some((e) => e.type === "blind" && e.blind === "big" && e.allIn && e.amount < state.config.bigBlind)) corners.shortBigBlind++;
    }
  }
  for (const [corner, count] of Object.entries(corners)) expect({ corner, seen: count > 0 }).toEqual({ corner, seen: true });
}, 60_000);

/** The hand as the public sees it: hole cards only of the seats that showed them down. */
function publicEvents(state: HandState): HandState["events"] {
  const shown = new Set(state.events.flatMap((e) => (e.type === "show" ? [e.seat] : [])));
  return state.events.map((e) => (e.type === "hole_cards" && !shown.has(e.seat) ? { ...e, cards: e.cards.map(() => UNKNOWN_CARD) } : e));
}

test("public histories (unshown hole cards as ????) still replay to the same final stacks, mucked hands included", () => {
  const rng = seededRng("phh-public");
  let hidden = 0, muckedAtShowdown = 0;
  for (let m = 0; m < 60; m++) {
    for (const state of playMatch(rng, 2 + uniformInt(rng, 9), [8, 30, 100][uniformInt(rng, 3)], 40)) {
      const events = publicEvents(state);
      const text = exportPhh({ ...state, events });
      const phh = parsePhh(text);
      const shownSeats = new Set(state.events.flatMap((e) => (e.type === "show" ? [e.seat] : [])));
      for (const e of state.events) {
        if (e.type !== "hole_cards" || shownSeats.has(e.seat)) continue;
        hidden++;
        expect(text).not.toContain(formatCards(e.cards));
      }
      if (state.events.some((e) => e.type === "muck")) muckedAtShowdown++;
      expect(phh.actions.filter((a) => a.startsWith("d dh")).every((a) => /^d dh p\d+ (\?\?\?\?|\S{4})$/.test(a))).toBe(true);
      expect(replayPhh(phh).finishingStacks).toEqual(phh.finishing_stacks!);
    }
  }
  expect(hidden).toBeGreaterThan(0);
  expect(muckedAtShowdown).toBeGreaterThan(0);
}, 60_000);
