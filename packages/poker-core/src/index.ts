export * from "./cards.ts";
export * from "./evaluator.ts";
export * from "./rng.ts";
export * from "./starting-hands.ts";
