import { describe, expect, test } from "bun:test";
import { compareIds, newId } from "../../src/lib/ids";
import { monthOfMatchId } from "../../src/modules/match-host/hand-archive";

// Ids made before issue 35's shorter random part: the same 10 time digits, then 16 random digits.
const OLD_SHAPE = /^m_[0-9a-hjkmnp-tv-z]{26}$/;
const CROCKFORD_BODY = /^[0-9a-hjkmnp-tv-z]{20}$/;

describe("ids", () => {
  test("a prefix, 10 time digits and 10 random digits, in Crockford's lowercase alphabet", () => {
    const made = ["dev", "bot", "tbl", "m", "seat", "req", "trn"].map((prefix) => [prefix, newId(prefix as Parameters<typeof newId>[0])] as const);
    expect(made).toHaveLength(7);
    for (const [prefix, id] of made) {
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(id.slice(prefix.length + 1)).toMatch(CROCKFORD_BODY);
    }
  });

  test("made in one millisecond, they are distinct and sort in the order made (the random part is incremented)", () => {
    const at = Date.UTC(2026, 10, 26, 12);
    const ids = Array.from({ length: 5_000 }, () => newId("seat", at));
    expect(new Set(ids).size).toBe(5_000);
    expect([...ids].sort(compareIds)).toEqual(ids);
    expect(new Set(ids.map((id) => id.slice(0, 15))).size).toBe(1); // one time prefix
  });

  test("they sort by time, with ids of the older, longer shape made earlier, and a match id's month reads the same in both shapes", () => {
    const earlier = Date.UTC(2026, 9, 31, 23, 59, 59, 999);
    const later = earlier + 1;
    const newer = newId("m", later);
    // An old-shape id of the earlier millisecond: its time digits, then 16 random digits at their largest.
    const older = `${newId("m", earlier).slice(0, 12)}${"f".repeat(16)}`;
    expect(older).toMatch(OLD_SHAPE);
    expect(compareIds(older, newer)).toBe(-1);
    expect(monthOfMatchId(older)).toBe("2026_10");
    expect(monthOfMatchId(newer)).toBe("2026_11");
    const sameTimeOld = `${newer.slice(0, 12)}${"0".repeat(16)}`;
    expect(monthOfMatchId(sameTimeOld)).toBe(monthOfMatchId(newer));
  });
});
