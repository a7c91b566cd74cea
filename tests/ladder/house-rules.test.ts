/** The pure rules of issue 33: the house's bots and names, who may sit with the house, its daily limit, how many opponents an entry has, where tables go. */
import { describe, expect, test } from "bun:test";
import { houseRoster, isHouseBotName } from "../../src/modules/bots/house";
import { HOUSE_LIMIT_WINDOW_MS, limitLiftsAt } from "../../src/modules/ladder/house";
import { MeetingCounts, meetingCap, pairings, type Candidate } from "../../src/modules/ladder/pairing";
import { chooseNodes } from "../../src/modules/ladder/placement";
import { whoWaits, type WaitingEntry } from "../../src/modules/ladder/waiting";

const bot = (i: number, developer: string, rating = i, waitingSince = i): Candidate => ({ botId: `bot${String(i).padStart(3, "0")}`, developerId: developer, rating, waitingSince, matchesPlayed: 0 });

describe("the house's bots", () => {
  test("five bots for six-max from four strategies: distinct names, each a built-in; only those names are reserved", () => {
    const roster = houseRoster(["random", "caller", "tight", "raiser"], 5);
    expect(roster).toEqual([
      { name: "house-random", strategy: "random" },
      { name: "house-caller", strategy: "caller" },
      { name: "house-tight", strategy: "tight" },
      { name: "house-raiser", strategy: "raiser" },
      { name: "house-random-2", strategy: "random" },
    ]);
    expect(houseRoster(["caller"], 5).map((b) => b.name)).toEqual(["house-caller", "house-caller-2", "house-caller-3", "house-caller-4", "house-caller-5"]);
    expect(houseRoster([], 5)).toEqual([]);
    const reserved = ["house-random", "HOUSE-Caller", "house-tight-12", " house-raiser "];
    const free = ["house", "house-bot", "house-callers", "my-house-caller", "house-caller-x", "house-gto"];
    expect(reserved.filter(isHouseBotName)).toEqual(reserved);
    expect(free.filter(isHouseBotName)).toEqual([]);
  });
});

describe("who sits with the house", () => {
  test("six-max: a newcomer and five house bots make a table; the house never sits alone; a developer's bots stay apart", () => {
    const house = Array.from({ length: 5 }, (_, i) => bot(i + 1, "house", 10 + i, 0));
    const newcomer = bot(9, "newcomer", 12, 5);
    const [group, ...more] = pairings([...house, newcomer], 6, new MeetingCounts().get, { house: "house" });
    expect(more).toEqual([]);
    expect(group.map((c) => c.developerId).sort()).toEqual(["house", "house", "house", "house", "house", "newcomer"]);
    // Without a developer's bot, no table (six house bots, or five and nothing else).
    expect(pairings([...house, bot(6, "house")], 6, new MeetingCounts().get, { house: "house" })).toEqual([]);
    expect(pairings(house, 2, new MeetingCounts().get, { house: "house" })).toEqual([]);
    // Heads-up: never house against house.
    const headsUp = pairings([...house, newcomer], 2, new MeetingCounts().get, { house: "house" });
    expect(headsUp.length).toBe(1);
    expect(headsUp[0].map((c) => c.developerId).sort()).toEqual(["house", "newcomer"]);
    // Two bots of one developer never share a table, house or not.
    const twins = pairings([...house, newcomer, bot(10, "newcomer", 12, 6)], 6, new MeetingCounts().get, { house: "house" });
    expect(twins.length).toBe(1);
    expect(twins[0].filter((c) => c.developerId === "newcomer").length).toBe(1);
  });

  test("a six-max newcomer meets all five house bots every match without running into the cap (its cap counts the table's five opponents)", () => {
    expect(meetingCap(3, 6, 6)).toBe(8);
    expect(meetingCap(3, 6, 2)).toBe(1);
    const house = Array.from({ length: 5 }, (_, i) => bot(i + 1, "house", 10 + i, 0));
    const hero = bot(9, "newcomer", 12, 0);
    const meetings = new MeetingCounts();
    let rounds = 0;
    for (let round = 1; round <= 30; round++) {
      const groups = pairings([hero, ...house], 6, meetings.get, { house: "house", population: 6, now: round * 1_000, patienceMs: 15_000 });
      expect(groups.length).toBe(1);
      for (const member of groups[0]) [member.matchesPlayed, member.waitingSince] = [member.matchesPlayed + 1, round * 1_000];
      meetings.met(groups[0].map((c) => c.botId));
      rounds += 1;
    }
    expect(rounds).toBe(30);
    expect(meetings.get(hero.botId, house[0].botId)).toBe(30);
  });

  test("apart: a developer past the house's daily limit meets other developers, not the house; a group needs every member's buy-in", () => {
    const house = [bot(1, "house", 10, 0), bot(2, "house", 11, 0)];
    const winner = bot(3, "winner", 10, 1);
    const other = bot(4, "other", 30, 2);
    const apart = (a: Candidate, b: Candidate) => [a.developerId, b.developerId].includes("house") && [a.developerId, b.developerId].includes("winner");
    const groups = pairings([...house, winner, other], 2, new MeetingCounts().get, { house: "house", apart });
    expect(groups.map((g) => g.map((c) => c.developerId).sort())).toEqual([["house", "other"]]);
    // Past the limit and alone with the house: no table.
    expect(pairings([...house, winner], 2, new MeetingCounts().get, { house: "house", apart })).toEqual([]);
    // The house can pay one seat: one table with it, not two (the newcomer it takes leaves the other alone).
    const newcomers = [bot(5, "a", 10, 1), bot(6, "b", 10, 2)];
    const paid = pairings([...house, ...newcomers], 2, new MeetingCounts().get, { house: "house", seatsAffordable: (d) => (d === "house" ? 1 : 10) });
    expect(paid.map((g) => g.map((c) => c.developerId).sort())).toEqual([["a", "house"]]);
    // Six-max with the house able to pay three seats: no table for a lone newcomer.
    const five = Array.from({ length: 5 }, (_, i) => bot(10 + i, "house", 10, 0));
    expect(pairings([...five, newcomers[0]], 6, new MeetingCounts().get, { house: "house", seatsAffordable: (d) => (d === "house" ? 3 : 10) })).toEqual([]);
    expect(pairings([...five, newcomers[0]], 6, new MeetingCounts().get, { house: "house", seatsAffordable: (d) => (d === "house" ? 5 : 10) }).length).toBe(1);
  });
});

describe("a developer's hosted seats", () => {
  test("two hosted bots of one developer with one hosted seat left: one table this round, not two; its remote bots are not counted", () => {
    const hosted = (i: number, developer: string) => ({ ...bot(i, developer), hosted: true });
    const candidates = [hosted(1, "dev"), hosted(2, "dev"), bot(3, "a"), bot(4, "b"), bot(5, "dev")];
    const rules = { hostedSeatsLeft: (d: string) => (d === "dev" ? 1 : 0) };
    const groups = pairings(candidates, 2, new MeetingCounts().get, rules);
    const seated = groups.flat().filter((c) => c.developerId === "dev");
    expect(seated.filter((c) => c.hosted).length).toBe(1);
    expect(groups.length).toBe(2);
    expect(seated.filter((c) => !c.hosted).length).toBe(1);
  });
});

describe("the house's daily limit", () => {
  const hour = 3_600_000;
  test("lifts when enough of the oldest matches leave the rolling day; never below the limit, never set", () => {
    expect(limitLiftsAt([{ at: 0, profit: 500 }], 1_000)).toBeNull();
    expect(limitLiftsAt([{ at: 0, profit: 1_500 }], 1_000)).toBe(HOUSE_LIMIT_WINDOW_MS);
    // 600 + 300 + 400 = 1,300: dropping the first (600) leaves 700 < 1,000, so it lifts a day after it.
    expect(limitLiftsAt([{ at: hour, profit: 600 }, { at: 2 * hour, profit: 300 }, { at: 3 * hour, profit: 400 }], 1_000)).toBe(hour + HOUSE_LIMIT_WINDOW_MS);
    // A loss first: dropping it raises the rest, so it lifts only when the wins age out.
    expect(limitLiftsAt([{ at: hour, profit: -200 }, { at: 2 * hour, profit: 700 }, { at: 3 * hour, profit: 600 }], 1_000)).toBe(2 * hour + HOUSE_LIMIT_WINDOW_MS);
  });
});

describe("how many opponents an entry has", () => {
  const facts = (over: Partial<WaitingEntry["facts"]> = {}) => ({ retired: false, builtIn: true, hosted: false, connected: false, balance: 10_000, seated: false, ...over });
  const entry = (botId: string, developerId: string, format: "heads-up" | "six-max", over: Partial<WaitingEntry["facts"]> = {}, house = false): WaitingEntry => ({ botId, format, developerId, house, facts: facts(over) });

  test("one per other developer, each house bot the house can pay; NO_OPPONENT below a table; the house's reason and the daily limit", () => {
    const houseBots = (balance: number, format: "heads-up" | "six-max") => Array.from({ length: 5 }, (_, i) => entry(`h${i}`, "house", format, { balance }, true));
    const situation = { house: "house", limited: new Map(), paysAgainAt: new Date(1_000_000) };
    const alone = whoWaits([entry("me", "d1", "six-max"), ...houseBots(10_000, "six-max")], 1_000, situation).get("me|six-max")!;
    expect(alone).toEqual({ opponentsAvailable: 5, noOpponent: false, houseUnavailable: null });
    const poor = whoWaits([entry("me", "d1", "six-max"), ...houseBots(2_500, "six-max")], 1_000, situation).get("me|six-max")!;
    expect(poor).toEqual({ opponentsAvailable: 2, noOpponent: true, houseUnavailable: { reason: "HOUSE_OUT_OF_CREDITS", until: new Date(1_000_000).toISOString(), won: null } });
    // Two bots of another developer count once; my own never.
    const crowd = whoWaits([entry("me", "d1", "heads-up"), entry("mine", "d1", "heads-up"), entry("x1", "d2", "heads-up"), entry("x2", "d2", "heads-up")], 1_000, situation);
    expect(crowd.get("me|heads-up")!.opponentsAvailable).toBe(1);
    // A developer past the limit: the house is not counted, and it says why and until when.
    const limited = { ...situation, limited: new Map([["d1", { won: 2_400, until: new Date(5_000_000) }]]) };
    expect(whoWaits([entry("me", "d1", "heads-up"), ...houseBots(10_000, "heads-up")], 1_000, limited).get("me|heads-up")).toEqual({
      opponentsAvailable: 0,
      noOpponent: true,
      houseUnavailable: { reason: "HOUSE_DAILY_LIMIT", until: new Date(5_000_000).toISOString(), won: 2_400 },
    });
    // Seated: not waiting; paused: not waiting either.
    expect(whoWaits([entry("me", "d1", "heads-up", { seated: true })], 1_000, situation).get("me|heads-up")!.noOpponent).toBe(false);
    expect(whoWaits([entry("me", "d1", "heads-up", { balance: 0 })], 1_000, situation).get("me|heads-up")!.noOpponent).toBe(false);
  });
});

describe("where ladder tables go", () => {
  test("least loaded first, counting what this round placed; ties to this node, then by name; equal nodes get equal shares", () => {
    expect(chooseNodes(new Map([["a", 0], ["b", 0], ["c", 0]]), 6, "b")).toEqual(["b", "a", "c", "b", "a", "c"]);
    expect(chooseNodes(new Map([["a", 4], ["b", 0], ["c", 1]]), 4, "a")).toEqual(["b", "b", "c", "b"]);
    expect(chooseNodes(new Map(), 2, "solo")).toEqual(["solo", "solo"]);
    const counts = new Map<string, number>();
    for (const node of chooseNodes(new Map([["a", 10], ["b", 10], ["c", 10]]), 300, "a")) counts.set(node, (counts.get(node) ?? 0) + 1);
    expect([...counts.values()]).toEqual([100, 100, 100]);
  });
});
