/**
 * Rank keys: every multiset of up to 7 ranks (at most 4 of each) has a distinct key sum, so the
 * sum of the seven cards' keys identifies the rank pattern. Found by a greedy search (each key the
 * smallest keeping all sums distinct); the largest seven-card sum is 18,393,156.
 */
export const RANK_KEYS = [1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520];

/** Key sums are bucketed into rows of 2^ROW_SHIFT; a per-row displacement packs them densely. */
export const ROW_SHIFT = 12;

export function rankKeySum(counts: ArrayLike<number>): number {
  let sum = 0;
  for (let r = 0; r < 13; r++) sum += counts[r] * RANK_KEYS[r];
  return sum;
}

/**
 * Greedy row-displacement perfect hash (densest rows first, each at the lowest base where all its
 * columns are free). Slow (seconds), so its output is stored in evaluator-row-offsets.ts;
 * tests/poker/regenerate-row-offsets.ts reruns it.
 */
export function computeRowOffsets(keys: ArrayLike<number>): Int32Array {
  const columnMask = (1 << ROW_SHIFT) - 1;
  const rows = new Map<number, number[]>();
  let maxRow = 0;
  for (let i = 0; i < keys.length; i++) {
    const row = keys[i] >>> ROW_SHIFT;
    if (row > maxRow) maxRow = row;
    let columns = rows.get(row);
    if (!columns) rows.set(row, (columns = []));
    columns.push(keys[i] & columnMask);
  }
  const offsets = new Int32Array(maxRow + 1);
  const occupied = new Uint8Array(keys.length * 4 + (2 << ROW_SHIFT));
  let firstFree = 0;
  const byDensity = [...rows.entries()].sort((x, y) => y[1].length - x[1].length || x[0] - y[0]);
  for (const [row, columns] of byDensity) {
    columns.sort((x, y) => x - y);
    while (occupied[firstFree]) firstFree++;
    let base = firstFree - columns[0];
    for (; ; base++) {
      let free = true;
      for (const column of columns) if (occupied[base + column]) { free = false; break; }
      if (free) break;
    }
    for (const column of columns) occupied[base + column] = 1;
    offsets[row] = base - (row << ROW_SHIFT);
  }
  return offsets;
}
