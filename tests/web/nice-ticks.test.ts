import { expect, test } from "bun:test";
import { niceTicks } from "../../src/modules/web/view-kit";

test("chart axes: round values 1, 2 or 5 times a power of ten apart, spanning the range, never fewer than 3", () => {
  // -850..1 once gave two ticks (-500, 0): a bot page's net chips after a losing run (seen in CI).
  expect(niceTicks(-850, 1)).toEqual([-800, -600, -400, -200, 0]);
  let checked = 0;
  for (let lo = -5000; lo <= 0; lo += 37) {
    for (const hi of [1, 3, 50, 777, 4096]) {
      const ticks = niceTicks(lo, hi);
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      expect(ticks[0]).toBeGreaterThanOrEqual(lo);
      expect(ticks[ticks.length - 1]).toBeLessThanOrEqual(hi);
      const step = ticks[1] - ticks[0];
      const mantissa = step / 10 ** Math.floor(Math.log10(step));
      expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9)).toBe(true);
      checked++;
    }
  }
  expect(checked).toBe(136 * 5);
});
