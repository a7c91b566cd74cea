/**
 * SCRATCH (issue 36 round 2 prototype, not part of the service): fits the weights of a learned
 * value function's chance terms on one set of matches and measures width ÷ raw on another
 * (docs/RATINGS.md, "Tried and not kept", learned value functions). Reads the JSON lines of
 * bench/luck-learned-features.ts.
 *
 *   bun bench/luck-learned-fit.ts <features> <train.jsonl[,more.jsonl]> <test.jsonl>
 *
 * <features>: a regular expression over the feature names (e.g. 'cat2' or '^(flop|turn|river):cat[12]').
 * The weights θ minimise the spread of aivat-2 − θ·features over the training matches (least squares
 * with the hands as a regressor, as `cli eval`'s interval centres on the rate); the test figure is the
 * interval of aivat-2 − θ·features by match (`summarize`'s formula) over the raw one's.
 */
import { readFileSync } from "node:fs";
import { summarize } from "../src/cli/evaluation";

interface Row { raw: number; aivat2: number; hands: number; f: number[] }
const STREETS = ["flop", "turn", "river"], CATS = [1, 2, 3, 4], MODS = ["1", "c", "b", "cb"];
/** The names in bench/luck-learned-features.ts's order. */
const NAMES = [
  ...STREETS.flatMap((s) => [`${s}:eqP`, `${s}:eqB`, ...CATS.flatMap((k) => MODS.flatMap((m) => [`${s}:cat${k}P${m}`, `${s}:cat${k}B${m}`]))]),
  "deal:eq", "deal:eqB", "deal:chen", "deal:chenB", "deal:eqBc", "deal:eqBb", "deal:eqBcb",
];

const [pattern, trainPaths, testPath] = process.argv.slice(2);
const read = (paths: string) => paths.split(",").flatMap((path) => readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Row));
const columns = NAMES.flatMap((name, i) => (new RegExp(pattern).test(name) ? [i] : []));

/** Solves (AᵀA) θ = Aᵀy by Gaussian elimination with partial pivoting; A = [features, hands]. */
function leastSquares(rows: Row[]): number[] {
  const k = columns.length + 1, G = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  for (const row of rows) {
    const a = [...columns.map((c) => row.f[c]), row.hands];
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) G[i][j] += a[i] * a[j];
      G[i][k] += a[i] * row.aivat2;
    }
  }
  for (let i = 0; i < k; i++) {
    let pivot = i;
    for (let r = i + 1; r < k; r++) if (Math.abs(G[r][i]) > Math.abs(G[pivot][i])) pivot = r;
    [G[i], G[pivot]] = [G[pivot], G[i]];
    for (let r = 0; r < k; r++) {
      if (r === i || G[i][i] === 0) continue;
      const factor = G[r][i] / G[i][i];
      for (let c = i; c <= k; c++) G[r][c] -= factor * G[i][c];
    }
  }
  return G.slice(0, k - 1).map((row, i) => (row[i] === 0 ? 0 : row[k] / row[i]));
}

const theta = leastSquares(read(trainPaths));
const test = read(testPath);
const width = (values: number[]) => {
  const ci = summarize(test.map((row, i) => ({ bigBlinds: values[i], hands: row.hands }))).ci95!;
  return ci[1] - ci[0];
};
const raw = width(test.map((r) => r.raw));
const learned = test.map((r) => r.aivat2 - columns.reduce((sum, c, j) => sum + theta[j] * r.f[c], 0));
console.log(
  JSON.stringify({
    features: columns.map((c) => NAMES[c]),
    theta: theta.map((x) => Number(x.toPrecision(4))),
    testMatches: test.length,
    widthOverRaw: { aivat2: Number((width(test.map((r) => r.aivat2)) / raw).toFixed(3)), learned: Number((width(learned) / raw).toFixed(3)) },
  }),
);
