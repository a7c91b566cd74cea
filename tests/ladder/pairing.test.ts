import { describe, expect, test } from "bun:test";
import { seededRng, uniformInt } from "@poker-bots/core/rng";
import { MeetingCounts, meetingCap, pairings, type Candidate } from "../../src/modules/ladder/pairing";

const bot = (i: number, developer = `dev${i}`, rating = i, waitingSince = i): Candidate => ({ botId: `bot${String(i).padStart(3, "0")}`, developerId: developer, rating, waitingSince, matchesPlayed: 0 });

describe("who plays whom", () => {
  test("the longest waiting anchors the next group, and meets the closest rating among those it has not met too often", () => {
    const candidates = [bot(1, "a", 10, 5), bot(2, "b", 30, 1), bot(3, "c", 29, 9), bot(4, "d", 11, 7)];
    const groups = pairings(candidates, 2, new MeetingCounts().get);
    expect(groups.map((g) => g.map((c) => c.botId))).toEqual([["bot002", "bot003"], ["bot001", "bot004"]]);
  });

  test("never two bots of one developer in a group; a bot with no other developer free waits", () => {
    const candidates = [bot(1, "house"), bot(2, "house"), bot(3, "house"), bot(4, "newcomer")];
    const groups = pairings(candidates, 2, new MeetingCounts().get);
    expect(groups.length).toBe(1);
    expect(new Set(groups[0].map((c) => c.developerId))).toEqual(new Set(["house", "newcomer"]));
    const six = pairings(Array.from({ length: 12 }, (_, i) => bot(i, `dev${i % 5}`)), 6, new MeetingCounts().get);
    expect(six).toEqual([]);
    const sixOk = pairings(Array.from({ length: 12 }, (_, i) => bot(i, `dev${i % 6}`)), 6, new MeetingCounts().get);
    expect(sixOk.length).toBe(2);
    for (const group of sixOk) expect(new Set(group.map((c) => c.developerId)).size).toBe(6);
  });

  test("past the cap, the next closest: an opponent already met as often as twice uniform pairing is passed over", () => {
    const meetings = new MeetingCounts();
    meetings.met(["bot001", "bot002"]);
    // 10 available, bot001 with no match yet: the cap is 1, so bot002 (closest, met once) is passed over for bot003.
    expect(meetingCap(0, 10)).toBe(1);
    const candidates = [bot(1, "a", 10, 0), bot(2, "b", 10.5, 5), bot(3, "c", 12, 6), ...Array.from({ length: 7 }, (_, i) => bot(10 + i, `x${i}`, 50 + i, 10 + i))];
    const [first] = pairings(candidates, 2, meetings.get);
    expect(first.map((c) => c.botId)).toEqual(["bot001", "bot003"]);
  });

  test("a bot waits rather than meet an opponent past the cap, until its patience runs out", () => {
    const meetings = new MeetingCounts();
    meetings.met(["bot001", "bot002"]);
    const pair = [bot(1, "a", 10, 1_000), bot(2, "b", 11, 1_000)];
    // 40 entries in the format, these two free, met once already: the cap (1) says wait.
    expect(pairings(pair, 2, meetings.get, { population: 40, now: 2_000, patienceMs: 2_000 })).toEqual([]);
    // Waited 2 s: they play rather than wait on.
    expect(pairings(pair, 2, meetings.get, { population: 40, now: 3_000, patienceMs: 2_000 }).length).toBe(1);
  });

  test("a newcomer alone with the house's four built-ins plays every round: its caps count only the opponents it may meet", () => {
    const hero = { ...bot(0, "newcomer", 10, 0) };
    const house = Array.from({ length: 4 }, (_, i) => bot(i + 1, "house", 10 + i, 0));
    const meetings = new MeetingCounts();
    let played = 0;
    for (let round = 1; round <= 40; round++) {
      const now = round * 1_000;
      const groups = pairings([hero, ...house], 2, meetings.get, { population: 5, now, patienceMs: 15_000 });
      expect(groups.length).toBe(1);
      for (const member of groups[0]) {
        member.matchesPlayed += 1;
        member.waitingSince = now;
      }
      meetings.met(groups[0].map((c) => c.botId));
      played += 1;
    }
    expect(played).toBe(40);
    // Spread over the four: each met about ten times, never more than twice that.
    for (const b of house) expect(meetings.get(hero.botId, b.botId)).toBeLessThanOrEqual(20);
  });

  test("variety: over many rounds among 20 bots of spread ratings, no pair meets more than twice what uniform pairing predicts, once each has played enough to meet everyone", () => {
    const rng = seededRng("ladder-variety");
    const n = 20;
    const bots = Array.from({ length: n }, (_, i) => ({ ...bot(i, `dev${i}`, i * 3), matchesPlayed: 0 }));
    const meetings = new MeetingCounts();
    let now = 1_000;
    for (let round = 0; round < 400; round++) {
      // Some bots are busy each round (a match still on), as on the real ladder.
      const free = bots.filter(() => uniformInt(rng, 4) !== 0);
      for (const group of pairings(free, 2, meetings.get, { population: n })) {
        meetings.met(group.map((c) => c.botId));
        for (const member of group) {
          member.matchesPlayed += 1;
          member.waitingSince = now++;
        }
      }
    }
    let checked = 0;
    let worst = 0;
    for (const a of bots) {
      for (const b of bots) {
        if (a.botId >= b.botId) continue;
        // Uniform pairing: each of a's matches against any one of the other n − 1 with equal chance.
        const uniform = (a.matchesPlayed + b.matchesPlayed) / 2 / (n - 1);
        expect(uniform).toBeGreaterThan(1);
        worst = Math.max(worst, meetings.get(a.botId, b.botId) / uniform);
        checked += 1;
      }
    }
    expect(checked).toBe((n * (n - 1)) / 2);
    expect(worst).toBeLessThanOrEqual(2);
  });

  test("closeness: a bot's average opponent is nearer its rating than uniform pairing's would be, and nearly every bot plays every round", () => {
    const n = 30;
    const bots = Array.from({ length: n }, (_, i) => bot(i, `dev${i}`, i * 2, 0));
    const meetings = new MeetingCounts();
    const gaps: number[] = [];
    for (let round = 1; round <= 60; round++) {
      const now = round * 1_000;
      for (const group of pairings(bots, 2, meetings.get, { population: n, now, patienceMs: 2_000 })) {
        meetings.met(group.map((c) => c.botId));
        gaps.push(Math.abs(group[0].rating - group[1].rating));
        for (const member of group) {
          member.matchesPlayed += 1;
          member.waitingSince = now;
        }
      }
    }
    // A bot may wait a round or two for an opponent under the cap, never longer than its patience.
    expect(gaps.length).toBeGreaterThan(0.8 * 60 * (n / 2));
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    // Uniform pairing among ratings 0, 2, …, 58: a mean gap of about (n + 1) / 3 × 2 ≈ 20.7.
    expect(mean).toBeLessThan(20.7 * 0.8);
  });
});
