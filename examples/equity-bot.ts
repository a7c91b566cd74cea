/**
 * A stronger example: Monte-Carlo equity against the opponents still in the hand, compared with
 * the pot odds. Bets for value when well ahead, calls when the price is right, folds otherwise.
 *
 *   bun run cli -- play --players ./examples/equity-bot.ts,./examples/starter-bot.ts,tight --hands 200 --seed 7
 *   bun examples/equity-bot.ts --bot my-bot
 */
import { call, check, defineBot, equity, fold, potOdds, raiseTo, runBot, type DecisionState } from "@poker-bots/sdk";

/** How much to bet: a fraction of the pot, as a raise-to street total within the legal bounds. */
function sizedRaise(state: DecisionState, potFraction: number) {
  const target = state.bet + state.toCall + Math.ceil((state.pot + state.toCall) * potFraction);
  return raiseTo(Math.min(state.maxRaiseTo ?? target, Math.max(state.minRaiseTo ?? target, target)));
}

const bot = defineBot({
  name: "equity",
  decide(state) {
    // Equity vs each live opponent holding a random hand; seeded by the cards, so replays agree.
    const myEquity = equity(state, { iterations: state.street === "preflop" ? 400 : 800 });
    const needed = potOdds(state);
    const canRaise = state.legal.has("raise");
    const opponents = Math.max(1, state.opponents.length);
    // Against more opponents, a hand must be proportionally stronger to bet.
    const strong = 0.5 + 0.3 * (1 - 1 / opponents);

    if (myEquity > strong + 0.15 && canRaise) return sizedRaise(state, 1);
    if (myEquity > strong && canRaise && state.toCall === 0) return sizedRaise(state, 0.5);
    if (state.toCall === 0) return check();
    // Call when equity beats the price (with a margin for the bets still to come).
    if (myEquity > needed + 0.05) return call();
    return fold();
  },
});

export default bot;

if (import.meta.main) await runBot(bot);
