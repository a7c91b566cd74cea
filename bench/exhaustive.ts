// Evaluates all 133,784,560 seven-card hands (nested loops, keys summed incrementally).
import { CARD_KEYS, CATEGORY_NAMES, HAND_CLASS_COUNT, categoryIndex, evaluate7, nonFlushValueOfKey } from "@poker-bots/core/evaluator";
import { FLUSH_BITS, SUIT_COUNTER_START } from "@poker-bots/core/evaluator-tables";

function countSevenCardValues(): Float64Array {
  const hits = new Float64Array(HAND_CLASS_COUNT + 1);
  for (let a = 0; a < 46; a++) {
    const ka = SUIT_COUNTER_START + CARD_KEYS[a];
    for (let b = a + 1; b < 47; b++) {
      const kb = ka + CARD_KEYS[b];
      for (let c = b + 1; c < 48; c++) {
        const kc = kb + CARD_KEYS[c];
        for (let d = c + 1; d < 49; d++) {
          const kd = kc + CARD_KEYS[d];
          for (let e = d + 1; e < 50; e++) {
            const ke = kd + CARD_KEYS[e];
            for (let f = e + 1; f < 51; f++) {
              const kf = ke + CARD_KEYS[f];
              for (let g = f + 1; g < 52; g++) {
                const key = kf + CARD_KEYS[g];
                const value = ((key | 0) & FLUSH_BITS) === 0 ? nonFlushValueOfKey(key) : evaluate7(a, b, c, d, e, f, g);
                hits[value]++;
              }
            }
          }
        }
      }
    }
  }
  return hits;
}

const start = performance.now();
const hits = countSevenCardValues();
const seconds = (performance.now() - start) / 1000;
const result: Record<string, number> = { total: 0 };
for (const name of [...CATEGORY_NAMES].reverse()) result[name] = 0;
let reachableClasses = 0;
for (let value = 1; value <= HAND_CLASS_COUNT; value++) {
  if (hits[value] === 0) continue;
  reachableClasses++;
  result.total += hits[value];
  result[CATEGORY_NAMES[categoryIndex(value)]] += hits[value];
}
console.log(`${result.total} hands in ${seconds.toFixed(2)} s (${(result.total / seconds / 1e6).toFixed(0)} M/s), ${reachableClasses} distinct values`);
result.seconds = Number(seconds.toFixed(3));
console.log(JSON.stringify(result));
