import { describe, expect, test } from "bun:test";
import { parsePhhs, replayPhh, exportPhh, parsePhh, playersInPhhOrder } from "../../src/poker/phh.ts";
import { join } from "node:path";
import { play, riggedDeck, table } from "./helpers.ts";
import { vectorsDir } from "../support/vectors.ts";

const vectors = vectorsDir();
const manifest: any[] = await Bun.file(join(vectors, "manifest.json")).json();
const read = (file: string) => Bun.file(join(vectors, file)).text();

/**
 * Two files carry numbers the rules do not give, so the test asserts the rules' answer:
 * - pluribus/41b/204: the dataset splits an odd pot of 7,899 into half chips (10162.5 each);
 *   with whole chips the odd chip goes to the first winner left of the button (p1): 10163/10162.
 * - wsop/2019/42/3/00-01-07: finishing_stacks were computed with the big-blind ante as dead money,
 *   but the file says ante_trimming_status = true, under which the 500,000 ante p2 posted beyond
 *   what p1 matched is returned to p2 (17,600,000 / 6,125,000 instead of 18,100,000 / 5,625,000).
 */
const KNOWN_OFF = new Set(["phh/pokerkit-d782667/data/pluribus/41b/204.phh", "phh/phh-dataset/data/wsop/2019/42/3/00-01-07.phh"]);

describe("every PHH vector replays to the expected stacks", () => {
  for (const entry of manifest.filter((m) => m.pokerkit_HEAD_integer_stacks)) {
    test(entry.file, async () => {
      const [{ hand }] = parsePhhs(await read(entry.file));
      const { finishingStacks } = replayPhh(hand);
      expect(finishingStacks).toEqual(entry.pokerkit_HEAD_integer_stacks);
      expect(finishingStacks).toEqual(entry.independent_sim_stacks);
      if (entry.file_finishing_stacks && !KNOWN_OFF.has(entry.file)) expect(finishingStacks).toEqual(entry.file_finishing_stacks);
      if (KNOWN_OFF.has(entry.file)) expect(finishingStacks).not.toEqual(entry.file_finishing_stacks);
    });
  }

  test("heads-up .phhs excerpt: reversed blinds, cents, stacks chain from hand to hand", async () => {
    const hands = parsePhhs(await read("phh/phh-dataset/handhq-abs-1000NLH-hu-excerpt.phhs"));
    expect(hands.map((h) => h.id)).toEqual(["8", "9", "14"]);
    const results = hands.map(({ hand }) => replayPhh(hand).finishingStacks);
    expect(results[0]).toEqual([1289.44, 2038.58]); // [8] button (p2) folds its small blind
    expect(results[1]).toEqual([1841.58, 1486.44]); // [9] p1 (big blind) folds the river: no rake here
    expect(hands[1].hand.starting_stacks).toEqual([results[0][1], results[0][0]]);
    expect(results[2]).toEqual([1475.69, 1851.58]); // [14] p2 raises to 30, p1 folds: 20 collected
  });
});

describe("export", () => {
  test("a hand the engine played exports to PHH that replays to the same stacks", () => {
    const deck = riggedDeck(3, 2, ["AhAd", "KcKd", "7c2d"], "Qs9h4c3d2s");
    const state = table([200, 150, 100], 2, { smallBlind: 1, bigBlind: 2, ante: 1, deck });
    play(state, [[2, "raise", 6], [0, "raise", 20], [1, "call"], [2, "fold"], [0, "raise", 60], [1, "raise", 129], [0, "call"]]);
    const text = exportPhh(state, { players: ["ann", "bob", "cy"] });
    expect(text).toContain('variant = "NT"');
    const parsed = parsePhh(text);
    expect(parsed.actions.slice(0, 3)).toEqual(["d dh p1 AhAd", "d dh p2 KcKd", "d dh p3 7c2d"]);
    expect(parsed.actions).toContain("p1 cbr 20");
    expect(parsed.antes).toEqual([1, 1, 1]);
    expect(parsed.finishing_stacks).toEqual(state.result!.stacks);
    expect(replayPhh(parsed).finishingStacks).toEqual(state.result!.stacks);
  });
  test("heads-up export lists p1 as the big blind", () => {
    const state = play(table([100, 100], 0, { smallBlind: 5, bigBlind: 10 }), [[0, "raise", 30], [1, "fold"]]);
    const parsed = parsePhh(exportPhh(state));
    expect(parsed.blinds_or_straddles).toEqual([5, 10]);
    expect(parsed.starting_stacks).toEqual([100, 100]);
    expect(parsed.actions.slice(2)).toEqual(["p2 cbr 30", "p1 f"]);
    expect(replayPhh(parsed).finishingStacks).toEqual([90, 110]);
  });
  test("playersInPhhOrder starts left of the button and ends on it", () => {
    expect(playersInPhhOrder(table([100, 100, 100, 100], 1))).toEqual([2, 3, 0, 1]);
    expect(playersInPhhOrder(table([100, 100], 0))).toEqual([1, 0]);
  });
});
