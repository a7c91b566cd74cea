/** Random legal play, for simulations, benchmarks and property tests (pure; randomness injected). */
import type { LegalActions, PlayerAction } from "./hand-types.ts";
import { type Rng, uniformInt } from "./rng.ts";

/** Folds rarely when it can check; raises about a quarter of the time, sizes uniform in range. */
export function randomLegalAction(legal: LegalActions, rng: Rng): PlayerAction {
  const roll = uniformInt(rng, 100);
  if (legal.canRaise && roll < 25) {
    const amount = legal.minRaiseTo + uniformInt(rng, legal.maxRaiseTo - legal.minRaiseTo + 1);
    return { type: "raise", amount };
  }
  if (roll < (legal.canCheck ? 30 : 45)) return { type: legal.canCheck && roll >= 5 ? "check" : "fold" };
  return { type: legal.canCheck ? "check" : "call" };
}
