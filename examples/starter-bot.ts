/**
 * A starter bot. Run it against the service:   bun examples/starter-bot.ts --bot my-bot
 * or locally, no server needed:                bun run cli -- play --players ./examples/starter-bot.ts,caller
 * On the rated ladder: `bun run cli -- ladder enter my-bot` once, then leave this running (no --once).
 * Edit decide() and see what changes.
 */
import { call, check, defineBot, fold, handStrength, potOdds, raiseTo, runBot } from "@poker-bots/sdk";

const bot = defineBot({
  name: "starter",
  decide(state) {
    const bigBlind = state.bigBlind ?? 10;
    const strength = handStrength(state);

    // Before the flop: raise good starting hands, see cheap flops with playable ones.
    if (strength.value === null) {
      const score = strength.preflopScore ?? 0;
      if (score >= 10 && state.legal.has("raise")) return raiseTo(3 * bigBlind + state.toCall);
      if (score >= 6 && state.toCall <= 3 * bigBlind) return state.legal.has("check") ? check() : call();
      return state.legal.has("check") ? check() : fold();
    }

    // After the flop: bet made hands (two pair or better), keep a pair when the price is right.
    const madeHand = ["two_pair", "three_of_a_kind", "straight", "flush", "full_house", "four_of_a_kind", "straight_flush"];
    if (madeHand.includes(strength.category) && state.legal.has("raise")) return raiseTo(state.bet + state.pot);
    if (strength.category === "one_pair" && potOdds(state) < 0.35) return state.legal.has("check") ? check() : call();
    return state.legal.has("check") ? check() : fold();
  },
});

export default bot;

if (import.meta.main) await runBot(bot);
