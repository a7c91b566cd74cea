/**
 * The one door from the SDK into the project's pure game core (src/poker: cards, the 7-card
 * evaluator, the seeded PRNG). Nothing else in the SDK imports outside packages/sdk.
 *
 * Publishing: the evaluator's lookup tables live in src/poker. To publish @poker-bots/sdk on its
 * own, either copy src/poker/{cards,evaluator*,rng,arrays}.ts into packages/sdk/src/core/ (they are
 * pure, dependency-free TypeScript) and point the imports below at it, or publish src/poker as a
 * package (e.g. @poker-bots/core) and depend on it. Only this file changes either way.
 */
export { evaluateCards, describeHand, handCategory, type HandCategory } from "../../../src/poker/evaluator.ts";
export { parseCard, formatCard } from "../../../src/poker/cards.ts";
export { seededRng, uniformInt, type Rng } from "../../../src/poker/rng.ts";
