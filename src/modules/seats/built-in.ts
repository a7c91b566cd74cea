import type { Rng } from "@poker-bots/core/rng";
import { decisionView, STRATEGIES } from "../bots/built-ins";
import type { BuiltInStrategy } from "../bots/model";
import type { BuiltInSeat } from "./model";

/** A built-in strategy at a seat: decided at once, with the match's random draws (deals.ts builtInRng). */
export function builtInSeat(botId: string, strategy: BuiltInStrategy, rng: Rng): BuiltInSeat {
  const play = STRATEGIES[strategy];
  return { kind: "built-in", botId, choose: (state, legal) => play(decisionView(state, legal), rng) };
}
