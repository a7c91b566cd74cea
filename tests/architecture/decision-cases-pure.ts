/**
 * Cases for docs/ARCHITECTURE.md's "Where is it decided?" rows whose deciding function is pure:
 * each calls it with an input and checks the decision (decisions.test.ts runs them). Each returns
 * how many decisions it checked.
 */
import { expect } from "bun:test";
import { seededRng, shuffleDeck, uniformInt } from "@poker-bots/core/rng";
import { claimableBefore } from "../../src/modules/credits/faucet";
import { gameDefinition } from "../../src/modules/acpc/match-state";
import { originAllowed } from "../../src/modules/mcp/index";
import { MatchClock, onMatchClock } from "../../src/modules/hosted/match-clock";
import { csrfTokenOf } from "../../src/modules/web/sessions";
import { cookie, localPath, refuseCrossSite } from "../../src/modules/web/browser-guard";
import { refuseUnlessViaCompetition } from "../../src/modules/tables/views";
import { blindsAt } from "../../src/poker/blind-levels";
import { placesOf } from "../../src/modules/competitions/sit-and-go";
import { circleSchedule } from "../../src/modules/competitions/schedule";
import { crosstableOf, standingsOf } from "../../src/modules/competitions/standings";
import { sidePots } from "../../src/poker/showdown";
import { decodeChunk, encodeChunks } from "../../src/poker/hand-codec";
import { fairDeck } from "../../src/poker/fair-deck";
import { allInEquityResults, finishedHandRecord } from "../../src/poker/all-in-equity";
import { chanceCorrectedResults } from "../../src/poker/chance-correction";
import { applyActionInPlace, legalActions, startHand } from "../../src/poker/hand";
import { randomLegalAction } from "../../src/poker/simulate";
import { CURRENT_ESTIMATOR, ESTIMATORS, handBaseline } from "../../src/modules/ratings/estimator";
import { decksOf } from "../../src/modules/match-host/recorded-hands";
import { applyMatch, noHands } from "../../src/modules/ratings/skill";
import { DEFAULT_LIMITS, MatchLogBudget, resolveLimits } from "../../src/modules/hosted/sandbox/limits";
import { stuckReason } from "../../src/modules/hosted/sandbox/watchdog";
import { entryState, type EntryFacts } from "../../src/modules/ladder/availability";
import { limitLiftsAt, HOUSE_LIMIT_WINDOW_MS } from "../../src/modules/ladder/house";
import { setThreadIdle } from "../../src/lib/thread-priority";
import type { HandState } from "../../src/poker/hand-types";
import type { StoredHand } from "../../src/poker/hand-record";
import type { TableConfig } from "../../src/db/schema";
import { handCorpus } from "../poker/hand-corpus";

export interface DecisionCase<H = unknown> {
  /** Matches the row's question, and only that row's. */
  question: RegExp;
  /** Calls the row's function with a case; returns how many decisions it checked. */
  decide(harness: H): number | Promise<number>;
}

/** expect(actual).toEqual(expected), counted. */
export function counter() {
  let count = 0;
  return {
    same<T>(actual: T, expected: T) {
      expect(actual).toEqual(expected);
      count += 1;
    },
    throws(run: () => unknown, pattern: RegExp) {
      let thrown: unknown = null;
      try {
        run();
      } catch (error) {
        thrown = error;
      }
      expect(String((thrown as { code?: string })?.code ?? thrown)).toMatch(pattern);
      count += 1;
    },
    get count() {
      return count;
    },
  };
}

const corpus = handCorpus(1, 30);

const finishedRandomHands = (label: string, hands: number) => {
  const rng = seededRng(label);
  return Array.from({ length: hands }, () => {
    const players = 2 + uniformInt(rng, 4);
    const state = startHand({
      seats: Array.from({ length: players }, (_, seatIndex) => ({ seatIndex, stack: 40 + uniformInt(rng, 200) })),
      buttonSeatIndex: 0,
      smallBlind: 1,
      bigBlind: 2,
      deck: shuffleDeck(rng),
    });
    while (!state.finished) applyActionInPlace(state, randomLegalAction(legalActions(state)!, rng));
    return finishedHandRecord(state);
  });
};

const facts = (over: Partial<EntryFacts>): EntryFacts => ({ retired: false, builtIn: false, hosted: false, connected: true, balance: 1_000, seated: false, ...over });

export const DECISION_CASES_PURE: DecisionCase[] = [
  {
    question: /^what an ACPC player is sent/,
    decide() {
      const c = counter();
      const headsUp = gameDefinition({ maxPlayers: 2, smallBlind: 5, bigBlind: 10, resetStacks: 2_000 }).split("\n");
      c.same(headsUp.includes("blind = 10 5"), true); // heads-up: the button posts the small blind, position 1
      c.same(headsUp.includes("firstPlayer = 2 1 1 1"), true);
      const sixMax = gameDefinition({ maxPlayers: 6, smallBlind: 5, bigBlind: 10, resetStacks: 2_000 }).split("\n");
      c.same(sixMax.includes("blind = 5 10 0 0 0 0") && sixMax.includes("stack = 2000 2000 2000 2000 2000 2000"), true);
      return c.count;
    },
  },
  {
    question: /^which Origin may call `\/mcp`/,
    decide() {
      const c = counter();
      const asking = (origin?: string) => new Request("http://localhost/mcp", { headers: origin ? { origin } : {} });
      c.same(originAllowed(asking(), []), true);
      c.same(originAllowed(asking("http://127.0.0.1:5173"), []), true);
      c.same(originAllowed(asking("https://evil.example"), []), false);
      c.same(originAllowed(asking("https://agents.example/"), ["https://agents.example"]), true);
      return c.count;
    },
  },
  {
    question: /^what time a hosted bot reads/,
    decide() {
      const c = counter();
      // Two contexts of one match read the same times however their messages interleave with other work.
      const [first, second] = [new MatchClock(1_000), new MatchClock(1_000)];
      const firstTimes = [first.next(), first.next(), first.next()];
      c.same([second.next(), second.next(), second.next()], firstTimes);
      c.same(onMatchClock({ deadline: "" }, firstTimes[2], 500).deadline, new Date(firstTimes[2] + 500).toISOString());
      return c.count;
    },
  },
  {
    question: /^how a browser signs in/,
    decide() {
      const c = counter();
      c.same(csrfTokenOf("session-a") === csrfTokenOf("session-a") && csrfTokenOf("session-a") !== csrfTokenOf("session-b"), true);
      c.same(/HttpOnly; SameSite=Strict/.test(cookie("s", "v", { maxAgeSeconds: 60, secure: false })), true);
      c.same(cookie("s", "v", { maxAgeSeconds: 60, secure: true }).endsWith("; Secure"), true);
      c.same([localPath("/me/bots?x=1"), localPath("//evil.example/"), localPath("https://evil.example/"), localPath("/\\evil")], ["/me/bots?x=1", "/me", "/me", "/me"]);
      c.throws(() => refuseCrossSite(new Request("http://here.test/x", { method: "POST", headers: { origin: "https://evil.example" } })), /FORBIDDEN/);
      return c.count;
    },
  },
  {
    question: /^who may sit at a challenge's or tournament's table/,
    decide() {
      const c = counter();
      const config = { unrated: true } as TableConfig;
      c.throws(() => refuseUnlessViaCompetition(config, false), /COMPETITION_TABLE/);
      c.same(refuseUnlessViaCompetition(config, true), undefined);
      c.same(refuseUnlessViaCompetition({} as TableConfig, false), undefined);
      return c.count;
    },
  },
  {
    question: /^at what blinds hand n is dealt/,
    decide() {
      const c = counter();
      const schedule = { smallBlind: 1, bigBlind: 2, blindLevels: [{ smallBlind: 1, bigBlind: 2, hands: 10 }, { smallBlind: 2, bigBlind: 4, hands: 10 }] };
      c.same(blindsAt(schedule, 10), { smallBlind: 1, bigBlind: 2 });
      c.same(blindsAt(schedule, 11), { smallBlind: 2, bigBlind: 4 });
      c.same(blindsAt(schedule, 500), { smallBlind: 2, bigBlind: 4 }); // the last level lasts
      c.same(blindsAt({ smallBlind: 5, bigBlind: 10 }, 500), { smallBlind: 5, bigBlind: 10 });
      return c.count;
    },
  },
  {
    question: /^how a sit-and-go is entered, paid, ended and placed/,
    decide() {
      const c = counter();
      const hand = (handNumber: number, players: Array<[string, number, number]>) => ({ handNumber, players: players.map(([botId, startingStack, finalStack], seat) => ({ seat, botId, startingStack, finalStack })) }) as unknown as StoredHand;
      const hands = [hand(1, [["a", 100, 150], ["b", 100, 0], ["c", 100, 150]]), hand(2, [["a", 150, 300], ["c", 150, 0]])];
      const places = placesOf(hands, new Map([["a", 300], ["b", 0], ["c", 0]]));
      c.same(places.map((p) => [p.botId, p.place]), [["a", 1], ["c", 2], ["b", 3]]); // busted later places higher
      c.same(places.reduce((sum, p) => sum + p.cashout, 0), 300);
      return c.count;
    },
  },
  {
    question: /^how a round robin is scheduled, played, and ranked/,
    decide() {
      const c = counter();
      const schedule = circleSchedule(["a", "b", "c", "d"], 1);
      c.same(schedule.length, 6);
      const pairs = new Set(schedule.map((m) => [m.botA, m.botB].sort().join("-")));
      c.same(pairs.size, 6); // every pair meets once
      for (const round of [1, 2, 3]) c.same(new Set(schedule.filter((m) => m.round === round).flatMap((m) => [m.botA, m.botB])).size, 4); // nobody twice in a round
      const results = [1, 2, 3].map(() => ({ botA: "a", botB: "b", profitA: 40, hands: 100, forfeitedBy: null }));
      const standings = standingsOf(["a", "b"], results, 2, "seed");
      c.same(standings.map((s) => [s.botId, s.rank]), [["a", 1], ["b", 2]]);
      c.same(crosstableOf(["a", "b"], results, 2).find((cell) => cell.botId === "a" && cell.opponentBotId === "b")?.matches, 3);
      return c.count;
    },
  },
  {
    question: /^where the faucet cooldown is decided/,
    decide() {
      const c = counter();
      const now = new Date("2026-11-26T12:00:00Z");
      c.same(claimableBefore(now, 60_000).toISOString(), "2026-11-26T11:59:00.000Z");
      c.same(claimableBefore(now, 0).getTime(), now.getTime());
      return c.count;
    },
  },
  {
    question: /^where side pots are computed/,
    decide() {
      const c = counter();
      const state = { contributions: [100, 50, 100], antesPosted: [0, 0, 0], folded: [false, false, false], config: { anteTrimming: true } } as unknown as HandState;
      c.same(sidePots(state), [{ amount: 150, eligible: [0, 1, 2] }, { amount: 100, eligible: [0, 2] }]);
      const folded = { ...state, folded: [false, false, true] } as HandState;
      c.same(sidePots(folded).map((p) => p.eligible), [[0, 1], [0]]);
      return c.count;
    },
  },
  {
    question: /^how a hand is stored in a few bytes/,
    decide() {
      const c = counter();
      for (const match of corpus.slice(0, 3)) {
        const chunks = encodeChunks(match.hands, { smallBlind: match.smallBlind, bigBlind: match.bigBlind, explicitCards: match.deckSecret === null }, 300);
        const context = { smallBlind: match.smallBlind, bigBlind: match.bigBlind, botAt: match.botAt, deckOf: (n: number, cards: number) => fairDeck(match.deckSecret!, match.duplicate ? Math.ceil(n / 2) : n, cards) };
        const decoded = chunks.flatMap((chunk) => decodeChunk(chunk.bytes, chunk.first, chunk.last, context));
        c.same(JSON.stringify(decoded), JSON.stringify(match.hands));
      }
      return c.count;
    },
  },
  {
    question: /^how luck is taken out of a win rate/,
    decide() {
      const c = counter();
      let allIns = 0;
      for (const record of finishedRandomHands("decisions: luck", 60)) {
        const adjusted = allInEquityResults(record);
        const corrected = chanceCorrectedResults(record);
        // Each figure moves chips between the players, none made or lost.
        expect(Math.abs(adjusted.reduce((sum, r) => sum + r.allInEquity, 0))).toBeLessThan(1e-6);
        expect(Math.abs(corrected.reduce((sum, r) => sum + r.corrected, 0))).toBeLessThan(1e-6);
        if (adjusted.some((r) => Math.abs(r.allInEquity - r.raw) > 1e-9)) allIns++;
      }
      c.same(allIns > 0, true); // an all-in runout's chips are credited by equity, not as dealt
      c.same(allIns < 60, true);
      return c.count;
    },
  },
  {
    question: /^which estimator produces the adjusted figures/,
    decide() {
      const c = counter();
      c.same(ESTIMATORS.includes(CURRENT_ESTIMATOR), true);
      const match = corpus.find((m) => m.deckSecret !== null && !m.duplicate)!;
      c.same(handBaseline(match.hands[0], null), null); // no deck, no baseline: never chosen by the cards
      return c.count;
    },
  },
  {
    question: /^which deck a stored hand was dealt from/,
    decide() {
      const c = counter();
      const match = corpus.find((m) => m.deckSecret !== null && !m.duplicate)!;
      const deal = { matchId: "m", smallBlind: match.smallBlind, bigBlind: match.bigBlind, legacyDuplicate: false, deckSecret: match.deckSecret };
      c.same(decksOf(deal as never, match.hands).every((deck) => deck !== null && deck.length === 52), true);
      c.same(decksOf({ ...deal, deckSecret: "not the secret" } as never, match.hands).every((deck) => deck === null), true);
      return c.count;
    },
  },
  {
    question: /^when and in what order ratings are applied/,
    decide() {
      const c = counter();
      // Ranked by the adjusted result: the bot that lost chips but won on the adjusted figure goes up.
      const results = [
        { botId: "lucky", hands: { ...noHands(), count: 100, sumBb: 50, sumAdjustedBb: -20 } },
        { botId: "skilled", hands: { ...noHands(), count: 100, sumBb: -50, sumAdjustedBb: 20 } },
      ];
      const [lucky, skilled] = applyMatch(new Map(), results, CURRENT_ESTIMATOR);
      c.same(skilled.mu > lucky.mu, true);
      c.same([lucky.matchesPlayed, skilled.handsPlayed], [1, 100]);
      return c.count;
    },
  },
  {
    question: /^what a hosted bot may spend and where it runs/,
    decide() {
      const c = counter();
      const budget = new MatchLogBudget(resolveLimits({ logLinesPerMatch: 2 }));
      c.same([budget.admit("a"), budget.admit("b"), budget.admit("c"), budget.admit("d")], ["kept", "kept", "limit", "dropped"]);
      c.same(Object.isFrozen(DEFAULT_LIMITS) && DEFAULT_LIMITS.failuresPerMatch > 0, true);
      // The watchdog: within its budget and grace a call is not stuck; far past it on the wall clock, it is.
      const slot = { cpuClock: null, words: new Int32Array(4), cpuAt: new Float64Array(1), exclusive: false, pending: new Map() } as never;
      c.same(stuckReason(slot, 1, 100, 150, 100), null);
      c.same(stuckReason(slot, 1, 100, 60_000, 100), "did not answer in 60 s");
      return c.count;
    },
  },
  {
    question: /^why a ladder entry does not play/,
    decide() {
      const c = counter();
      c.same(entryState(facts({}), 100), { status: "active", reason: null, available: true });
      c.same(entryState(facts({ balance: 50 }), 100).reason, "INSUFFICIENT_BALANCE");
      c.same(entryState(facts({ balance: 50, seated: true }), 100), { status: "active", reason: null, available: false }); // a seated bot has paid
      c.same(entryState(facts({ connected: false }), 100).reason, "BOT_OFFLINE");
      c.same(entryState(facts({ hosted: true, connected: false, hostedSeatsLeft: 0 }), 100).reason, "HOSTED_SEAT_LIMIT");
      c.same(limitLiftsAt([{ at: 0, profit: 300 }, { at: 10, profit: 300 }], 500), 0 + HOUSE_LIMIT_WINDOW_MS);
      c.same(limitLiftsAt([{ at: 0, profit: 100 }], 500), null);
      return c.count;
    },
  },
  {
    question: /^at what OS priority/,
    decide() {
      const c = counter();
      const idle = setThreadIdle(true);
      c.same(typeof idle, "boolean");
      c.same(setThreadIdle(false), idle); // back to normal where it could leave it
      return c.count;
    },
  },
];
