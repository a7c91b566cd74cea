import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

/**
 * Every list route's cursor, fed forged values: extreme numbers, NaN-like strings, wrong arities
 * and wrong types, inside base64url JSON (the ranked lists' opaque cursors) and as raw query text
 * (the id and number cursors). The property: never a 5xx; a refusal is a 400 VALIDATION_ERROR
 * naming the cursor's field; and a real cursor still pages (200).
 */
let token: string;
let matchId: string;
const h = useHarness("cursor_property");
beforeAll(async () => {
  token = (await h.registerDeveloper()).token;
  matchId = "m_nope";
});

/** A small seeded PRNG (mulberry32): the same cases on every run, so a failure replays. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EXTREME_NUMBERS = [1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324, 2 ** 53, -(2 ** 53), 2 ** 63, 2 ** 31, -(2 ** 31) - 1, 1.5, -0, 0, 42];
const ODD_STRINGS = ["NaN", "Infinity", "-Infinity", "1e308", "-1e+308", "0x10", "", " ", "bot_a", "bot'; drop table bots; --", "\u0000", "é", "x".repeat(300), "9".repeat(40)];
const ODD_VALUES: unknown[] = [null, true, false, [], {}, [1, 2], { a: 1 }, ...EXTREME_NUMBERS, ...ODD_STRINGS];

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/**
 * A forged cursor value: half the time the list's own shape (numbers where it has numbers, an id
 * last) with extreme numbers in it; else an array of 0–5 odd values, or one odd value alone.
 */
function forged(next: () => number, numbers: number): unknown {
  const pick = () => ODD_VALUES[Math.floor(next() * ODD_VALUES.length)];
  if (next() < 0.5) return [...Array.from({ length: numbers }, () => EXTREME_NUMBERS[Math.floor(next() * EXTREME_NUMBERS.length)]), "bot_a"];
  if (next() < 0.2) return pick();
  return Array.from({ length: Math.floor(next() * 6) }, pick);
}

/** Raw query text for an id or number cursor. */
const RAW = ["1e308", "-1e308", "NaN", "Infinity", "-1", "0", "1.5", "9007199254740993", "99999999999999999999", "0x10", "%00", "%E2%80%AE", "bot_", "x".repeat(100), "%27%3B", "[1,2]"];

/** `numbers`: how many numeric sort values a ranked list's cursor holds before its id. */
const ROUTES: Array<{ path: (cursor: string) => string; field: string; authed?: boolean; kind: "ranked" | "raw"; numbers?: number }> = [
  { path: (c) => `/api/stats?after=${c}`, field: "after", kind: "ranked", numbers: 2 },
  { path: (c) => `/api/ratings?after=${c}`, field: "after", kind: "ranked", numbers: 1 },
  { path: (c) => `/api/bots?after=${c}`, field: "after", kind: "raw" },
  { path: (c) => `/api/bots?limit=2&offset=${c}`, field: "offset", kind: "raw" },
  { path: (c) => `/api/me/bots?after=${c}`, field: "after", authed: true, kind: "raw" },
  { path: (c) => `/api/tables?before=${c}`, field: "before", kind: "raw" },
  { path: (c) => `/api/matches?before=${c}`, field: "before", kind: "raw" },
  { path: (c) => `/api/me/transactions?before=${c}`, field: "before", authed: true, kind: "raw" },
  { path: (c) => `/api/matches/${matchId}/hands?after=${c}`, field: "after", kind: "raw" },
  { path: (c) => `/api/stats?offset=${c}`, field: "offset", kind: "raw" },
];

describe("cursor property: forged cursors never reach the database unchecked", () => {
  test("the issue's cursor [1e308, 1e308, \"bot_a\"] is a 400, not a 500", async () => {
    const response = await h.call("GET", `/api/stats?after=${encode([1e308, 1e308, "bot_a"])}`);
    expect([response.status, response.body.error.code, response.body.error.details.field]).toEqual([400, "VALIDATION_ERROR", "after"]);
  });

  test("real cursors still page: in-range values are a 200", async () => {
    for (const path of [`/api/stats?after=${encode([-(2 ** 53) + 1, 2 ** 31 - 1, "bot_a"])}`, `/api/ratings?after=${encode([1e308, "bot_a"])}`, `/api/stats?after=${encode([0, 0, "bot_z"])}`]) {
      expect({ path, status: (await h.call("GET", path)).status }).toEqual({ path, status: 200 });
    }
  });

  test("600 forged cursors over every list route: no 5xx, every refusal a 400 naming the cursor field", async () => {
    const next = random(23);
    let checked = 0;
    let refused = 0;
    for (let i = 0; i < 600; i++) {
      const route = ROUTES[i % ROUTES.length];
      const cursor = route.kind === "ranked" ? (next() < 0.9 ? encode(forged(next, route.numbers ?? 0)) : RAW[Math.floor(next() * RAW.length)]) : RAW[Math.floor(next() * RAW.length)];
      const path = route.path(cursor);
      const response = await h.call("GET", path, route.authed ? { token } : {});
      expect({ path, serverError: response.status >= 500 }).toEqual({ path, serverError: false });
      if (response.status === 400) {
        expect({ path, code: response.body.error.code, field: response.body.error.details?.field }).toEqual({ path, code: "VALIDATION_ERROR", field: route.field });
        refused += 1;
      } else expect({ path, answered: [200, 404].includes(response.status) }).toEqual({ path, answered: true });
      checked += 1;
    }
    expect(checked).toBe(600);
    // Most forged cursors are refused; a few (an unknown but well-formed id, an offset of 0) are fine.
    expect(refused).toBeGreaterThan(400);
  });
});
