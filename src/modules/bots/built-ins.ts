import { cardRank, cardSuit } from "@poker-bots/core/cards";
import { chenScore } from "@poker-bots/core/starting-hands";
import { categoryIndex, evaluateCards } from "@poker-bots/core/evaluator";
import type { HandState, LegalActions, PlayerAction } from "../../poker/hand-types";
import { uniformInt, type Rng } from "@poker-bots/core/rng";
import type { BuiltInStrategy } from "./model";

/** What a built-in strategy may look at: its own cards, the board, the pot and the legal actions. */
export interface DecisionView {
  holeCards: number[];
  board: number[];
  pot: number;
  bigBlind: number;
  legal: LegalActions;
}

export type Strategy = (view: DecisionView, rng: Rng) => PlayerAction;

export function decisionView(state: HandState, legal: LegalActions): DecisionView {
  const p = state.actor;
  let pot = 0;
  for (const c of state.contributions) pot += c;
  return {
    holeCards: [state.holeCards[2 * p], state.holeCards[2 * p + 1]],
    board: state.board,
    pot,
    bigBlind: state.config.bigBlind,
    legal,
  };
}

const checkOrFold = (legal: LegalActions): PlayerAction => (legal.canCheck ? { type: "check" } : { type: "fold" });
const checkOrCall = (legal: LegalActions): PlayerAction => (legal.canCheck ? { type: "check" } : { type: "call" });

function raiseTo(legal: LegalActions, target: number): PlayerAction {
  return { type: "raise", amount: Math.max(legal.minRaiseTo, Math.min(legal.maxRaiseTo, Math.floor(target))) };
}

/** Any legal action with equal chance; a raise to a uniform amount between min and max. */
const random: Strategy = ({ legal }, rng) => {
  const choices: PlayerAction["type"][] = [legal.canCheck ? "check" : "call"];
  if (!legal.canCheck) choices.push("fold");
  if (legal.canRaise) choices.push("raise");
  const choice = choices[uniformInt(rng, choices.length)];
  if (choice !== "raise") return { type: choice };
  return { type: "raise", amount: legal.minRaiseTo + uniformInt(rng, legal.maxRaiseTo - legal.minRaiseTo + 1) };
};

/** Never folds, never raises. */
const caller: Strategy = ({ legal }) => checkOrCall(legal);

/** Raises whenever it may (the minimum), else calls. */
const raiser: Strategy = ({ legal }) => (legal.canRaise ? raiseTo(legal, legal.minRaiseTo) : checkOrCall(legal));

/** Chen's starting-hand score of two hole cards (card ids). */
export function startingHandScore(a: number, b: number): number {
  return chenScore(cardRank(a), cardRank(b), cardSuit(a) === cardSuit(b));
}

/** Plays premium starting hands and made hands; folds the rest. Thresholds, not reads. */
const tight: Strategy = ({ holeCards, board, pot, bigBlind, legal }) => {
  if (board.length === 0) {
    const score = startingHandScore(holeCards[0], holeCards[1]);
    if (score >= 10) return legal.canRaise ? raiseTo(legal, Math.max(legal.minRaiseTo, 3 * bigBlind)) : checkOrCall(legal);
    if (score >= 7 && legal.callAmount <= 3 * bigBlind) return checkOrCall(legal);
    return checkOrFold(legal);
  }
  const category = categoryIndex(evaluateCards([...holeCards, ...board]));
  if (category >= 2) return legal.canRaise ? raiseTo(legal, legal.minRaiseTo + pot) : checkOrCall(legal);
  if (category === 1 && legal.callAmount <= pot) return checkOrCall(legal);
  return checkOrFold(legal);
};

export const STRATEGIES: Record<BuiltInStrategy, Strategy> = { random, caller, tight, raiser };

