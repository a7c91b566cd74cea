// 7-card evaluations per second on 10 M pre-generated random hands: ours vs the `phe` package.
import { evaluate7 } from "@poker-bots/core/evaluator";
import { seededRng, uniformInt } from "@poker-bots/core/rng";
// @ts-ignore -- phe ships without type declarations
import pheEvaluate7 from "phe/lib/evaluator7.js";

const HAND_COUNT = 10_000_000;
const ROUNDS = 3;

function generateHands(): Int32Array {
  const rng = seededRng("bench:evaluator");
  const hands = new Int32Array(HAND_COUNT * 7);
  const deck = new Int32Array(52);
  for (let h = 0; h < HAND_COUNT; h++) {
    for (let i = 0; i < 52; i++) deck[i] = i;
    for (let i = 0; i < 7; i++) {
      const j = i + uniformInt(rng, 52 - i);
      const card = deck[j];
      deck[j] = deck[i];
      deck[i] = card;
      hands[h * 7 + i] = card;
    }
  }
  return hands;
}

function timeOurs(hands: Int32Array): { perSec: number; checksum: number } {
  const start = performance.now();
  let checksum = 0;
  for (let o = 0; o < hands.length; o += 7) {
    checksum += evaluate7(hands[o], hands[o + 1], hands[o + 2], hands[o + 3], hands[o + 4], hands[o + 5], hands[o + 6]);
  }
  return { perSec: HAND_COUNT / ((performance.now() - start) / 1000), checksum };
}

function timePhe(hands: Int32Array): { perSec: number; checksum: number } {
  const start = performance.now();
  let checksum = 0;
  for (let o = 0; o < hands.length; o += 7) {
    checksum += pheEvaluate7(hands[o], hands[o + 1], hands[o + 2], hands[o + 3], hands[o + 4], hands[o + 5], hands[o + 6]);
  }
  return { perSec: HAND_COUNT / ((performance.now() - start) / 1000), checksum };
}

const hands = generateHands();
let best = 0, bestPhe = 0;
for (let round = 0; round < ROUNDS; round++) {
  const ours = timeOurs(hands);
  const phe = timePhe(hands);
  best = Math.max(best, ours.perSec);
  bestPhe = Math.max(bestPhe, phe.perSec);
  console.log(`round ${round + 1}: ours ${(ours.perSec / 1e6).toFixed(1)} M/s, phe ${(phe.perSec / 1e6).toFixed(1)} M/s (checksums ${ours.checksum}, ${phe.checksum})`);
}
console.log(`best of ${ROUNDS}: ours ${(best / 1e6).toFixed(1)} M evals/s, phe ${(bestPhe / 1e6).toFixed(1)} M evals/s, ratio ${(best / bestPhe).toFixed(1)}x`);
console.log(JSON.stringify({ evalsPerSec: Math.round(best), pheEvalsPerSec: Math.round(bestPhe) }));
