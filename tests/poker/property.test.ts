import { expect, test } from "bun:test";
import { applyAction, applyActionInPlace, legalActions, startHand } from "../../src/poker/hand.ts";
import type { HandState, LegalActions, PlayerAction } from "../../src/poker/hand-types.ts";
import { exportPhh, parsePhh, replayPhh } from "../../src/poker/phh.ts";
import { seededRng, shuffleDeck, uniformInt, type Rng } from "@poker-bots/core/rng";
import { randomLegalAction } from "../../src/poker/simulate.ts";

const HANDS = 100_000;
/** PHH export → import on every hand; TOML stringify + parse dominate, so checked on every other hand. */
const PHH_EVERY = 2;

function illegalActionFor(legal: LegalActions, rng: Rng): PlayerAction {
  const options: PlayerAction[] = [{ type: "raise", amount: 0.5 }];
  if (!legal.canCheck) options.push({ type: "check" });
  if (legal.canRaise) options.push({ type: "raise", amount: legal.maxRaiseTo + 1 }, { type: "raise", amount: legal.minRaiseTo - 1 });
  else options.push({ type: "raise", amount: legal.callAmount * 3 + 10 });
  return options[uniformInt(rng, options.length)];
}

function randomHand(rng: Rng): HandState {
  const players = 2 + uniformInt(rng, 8);
  const bigBlind = 2 + 2 * uniformInt(rng, 5);
  const shortStacks = uniformInt(rng, 3) === 0;
  const seats = Array.from({ length: players }, (_, i) => ({
    seatIndex: i * 2 + uniformInt(rng, 2),
    stack: 1 + uniformInt(rng, shortStacks ? 3 * bigBlind : 200 * bigBlind),
  }));
  return startHand({
    seats,
    buttonSeatIndex: seats[uniformInt(rng, players)].seatIndex,
    smallBlind: bigBlind / 2,
    bigBlind,
    ante: uniformInt(rng, 4) === 0 ? 1 + uniformInt(rng, bigBlind) : 0,
    anteTrimming: uniformInt(rng, 2) === 0,
    deck: shuffleDeck(rng),
  });
}

test(`${HANDS.toLocaleString()} random hands: conservation, legality, refusals, PHH round trip`, () => {
  const rng = seededRng("property");
  let actions = 0, refusals = 0, showdowns = 0;
  for (let h = 0; h < HANDS; h++) {
    const state = randomHand(rng);
    const total = state.startingStacks.reduce((s, x) => s + x, 0);
    for (let guard = 0; !state.finished; guard++) {
      expect(guard).toBeLessThan(200);
      const legal = legalActions(state)!;
      if (legal.canRaise) expect(legal.minRaiseTo).toBeLessThanOrEqual(legal.maxRaiseTo);
      if (uniformInt(rng, 8) === 0) {
        const illegal = illegalActionFor(legal, rng);
        const refused = applyAction(state, illegal);
        if (refused.ok) throw new Error(`accepted illegal ${JSON.stringify(illegal)} with ${JSON.stringify(legal)}`);
        expect(refused.reason.length).toBeGreaterThan(0);
        refusals++;
      }
      const result = applyActionInPlace(state, randomLegalAction(legal, rng));
      if (!result.ok) throw new Error(`refused a legal action: ${result.reason}`);
      actions++;
    }
    const stacks = state.result!.stacks;
    if (stacks.some((s) => s < 0) || stacks.reduce((s, x) => s + x, 0) !== total) throw new Error("chips not conserved");
    if (state.result!.shown.length > 0) showdowns++;
    if (h % PHH_EVERY === 0) {
      const exported = parsePhh(exportPhh(state));
      const replayed = replayPhh(exported);
      expect(replayed.finishingStacks).toEqual(exported.finishing_stacks!);
      expect(parsePhh(exportPhh(replayed.state)).actions).toEqual(exported.actions);
    }
  }
  expect(actions).toBeGreaterThan(HANDS);
  expect(refusals).toBeGreaterThan(HANDS / 10);
  expect(showdowns).toBeGreaterThan(HANDS / 20);
}, 120_000);
