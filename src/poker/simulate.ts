/** Random legal play, for simulations, benchmarks and property tests (pure; randomness injected). */
import type { LegalActions, PlayerAction } from "./hand-types.ts";
import { type Rng, uniformInt } from "@poker-bots/core/rng";

// Shared, frozen: simulations draw millions of actions and the engine only reads them.
const FOLD: PlayerAction = Object.freeze({ type: "fold" });
const CHECK: PlayerAction = Object.freeze({ type: "check" });
const CALL: PlayerAction = Object.freeze({ type: "call" });

/** Folds rarely when it can check; raises about a quarter of the time, sizes uniform in range. */
export function randomLegalAction(legal: LegalActions, rng: Rng): PlayerAction {
  const roll = uniformInt(rng, 100);
  if (legal.canRaise && roll < 25) {
    const amount = legal.minRaiseTo + uniformInt(rng, legal.maxRaiseTo - legal.minRaiseTo + 1);
    return { type: "raise", amount };
  }
  if (roll < (legal.canCheck ? 30 : 45)) return legal.canCheck && roll >= 5 ? CHECK : FOLD;
  return legal.canCheck ? CHECK : CALL;
}
