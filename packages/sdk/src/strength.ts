/** The SDK's door to the shared game core (@poker-bots/core): cards, the 7-card evaluator, the seeded PRNG, the starting-hand score. */
export { evaluateCards, describeHand, handCategory, type HandCategory } from "@poker-bots/core/evaluator";
export { parseCard, formatCard } from "@poker-bots/core/cards";
export { seededRng, uniformInt, type Rng } from "@poker-bots/core/rng";
export { chenScore } from "@poker-bots/core/starting-hands";
