export * from "./cards.ts";
export * from "./rng.ts";
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
} from "./evaluator.ts";
export * from "./hand-types.ts";
export { startHand, legalActions, applyAction, applyActionInPlace, cloneHand, seatToAct, type StartHandOptions } from "./hand.ts";
export { sidePots } from "./showdown.ts";
export * from "./match.ts";
export { exportPhh, playersInPhhOrder, parsePhh, parsePhhs, replayPhh, type PhhHand, type ReplayResult, type ExportOptions } from "./phh.ts";
export { assert, assertChipsConserved } from "./invariants.ts";
export { randomLegalAction } from "./simulate.ts";
