export * from "@poker-bots/core/cards";
export * from "@poker-bots/core/rng";
export {
  evaluate5,
  evaluate6,
  evaluate7,
  evaluateCards,
  handCategory,
  describeHand,
  HAND_CLASS_COUNT,
  CATEGORY_NAMES,
  type HandCategory,
} from "@poker-bots/core/evaluator";
export * from "./hand-types.ts";
export { startHand, legalActions, applyAction, applyActionInPlace, cloneHand, seatToAct, type StartHandOptions } from "./hand.ts";
export { sidePots } from "./showdown.ts";
export * from "./match.ts";
export { exportPhh, playersInPhhOrder, parsePhh, parsePhhs, replayPhh, type PhhHand, type ReplayResult, type ExportOptions } from "./phh.ts";
export { assertChipsConserved } from "./invariants.ts";
export { invariant } from "../lib/assert.ts";
export { randomLegalAction } from "./simulate.ts";
