/** CLI: check a completed match's deals against its revealed deck secret (provably fair deals). */
import { formatCard, parseCard } from "@poker-bots/core/cards";
import { deckCommitment, DUPLICATE_DECK_ALGORITHM, FAIR_DECK_ALGORITHM, fairDeck } from "../../poker/fair-deck";
import { dealOfHand } from "../../modules/match-host/deals";
import { SERVER_FLAG, type Command } from "../command";

export interface FairnessRecord {
  matchId: string;
  deckCommitment: string;
  deckSecret: string;
  algorithm: string;
  /** Hands recorded (every page of the histories together); absent from records of older servers. */
  handsPlayed?: number;
  /** Numbers voided by resumptions: never recorded, never dealt again. */
  voidedHands?: number[];
  /** A copy of a duplicate match: the other copy's match, committed to the same secret (absent from older servers' records). */
  twinMatchId?: string | null;
  /** A hosted round robin's match: every match of its round, all committed to this secret (absent from older servers' records). */
  round?: { tournamentId: string; round: number; matchIds: string[] } | null;
}

/** Every match of a round committed to the record's secret; null when they did, else what is wrong. */
export function roundMismatch(record: FairnessRecord, others: FairnessRecord[]): string | null {
  if (!record.round?.matchIds.includes(record.matchId)) return `the round's matches do not include ${record.matchId}`;
  const other = others.find((o) => o.deckCommitment !== record.deckCommitment || o.deckSecret !== record.deckSecret);
  return other ? `match ${other.matchId} of round ${record.round.round} committed to another secret` : null;
}

/** A duplicate pair's two records commit to one secret and name each other; null when they do, else what is wrong. */
export function pairMismatch(record: FairnessRecord, twin: FairnessRecord): string | null {
  if (twin.twinMatchId !== record.matchId) return `match ${twin.matchId} does not name ${record.matchId} as its other copy`;
  if (twin.deckCommitment !== record.deckCommitment || twin.deckSecret !== record.deckSecret) return `the other copy ${twin.matchId} committed to another secret`;
  return null;
}

/** The most hands one page of GET /api/matches/:id/hands holds. */
const HANDS_PER_PAGE = 1_000;

/** What verification needs of a hand history (the JSON form of GET /api/matches/:id/hands). */
export interface DealtHand {
  handNumber: number;
  button: number;
  players: Array<{ seat: number }>;
  board: string[];
  events: Array<{ type: string; seat?: number; cards?: string[] | null }>;
}

/**
 * The first disagreement between the revealed secret and the dealt cards, or null when every card
 * agrees. Deal order: hole cards round-robin from the player left of the button (two rounds), then
 * burn, flop (3), burn, turn, burn, river. Hidden hole cards (null) cannot be compared and are skipped.
 */
export function firstMismatch(fairness: FairnessRecord, hands: DealtHand[]): string | null {
  const duplicate = fairness.algorithm === DUPLICATE_DECK_ALGORITHM;
  if (!duplicate && fairness.algorithm !== FAIR_DECK_ALGORITHM) return `unknown algorithm ${fairness.algorithm}`;
  if (deckCommitment(fairness.deckSecret) !== fairness.deckCommitment) return "the secret does not match the commitment";
  const reuse = deckReused(hands.map((h) => h.handNumber), fairness.voidedHands ?? [], duplicate);
  if (reuse) return reuse;
  for (const hand of hands) {
    const deck = fairDeck(fairness.deckSecret, dealOfHand(hand.handNumber, duplicate)).map(formatCard);
    const n = hand.players.length;
    const buttonIndex = hand.players.findIndex((p) => p.seat === hand.button);
    const dealOrder = hand.players.map((_, i) => hand.players[(buttonIndex + 1 + i) % n].seat);
    for (const event of hand.events) {
      if (event.type !== "hole_cards" || !event.cards) continue;
      const i = dealOrder.indexOf(event.seat!);
      const expected = [deck[i], deck[n + i]];
      if (event.cards.map((c) => formatCard(parseCard(c))).join() !== expected.join()) {
        return `hand ${hand.handNumber}: seat ${event.seat} was dealt ${event.cards.join("")}, the secret deals ${expected.join("")}`;
      }
    }
    const board = [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7].slice(0, hand.board.length).map((at) => deck[at]);
    if (hand.board.join() !== board.join()) return `hand ${hand.handNumber}: the board was ${hand.board.join("")}, the secret deals ${board.join("")}`;
  }
  return null;
}

/**
 * No deck dealt twice: every hand number, recorded or voided, appears once, and no two of them share
 * a deck (in a duplicate match of the one-match model, before issue 32, only the two copies of a
 * deal did, hands 2k − 1 and 2k; a duplicate pair's copies are two matches, each dealing deck n once).
 */
export function deckReused(recorded: number[], voided: number[], duplicate: boolean): string | null {
  const seen = new Set<number>();
  for (const n of [...recorded, ...voided]) {
    if (seen.has(n)) return `hand number ${n} appears twice (${voided.includes(n) ? "recorded and voided" : "recorded twice"})`;
    seen.add(n);
  }
  const decks = new Map<number, number>();
  for (const n of seen) {
    const deck = dealOfHand(n, duplicate);
    decks.set(deck, (decks.get(deck) ?? 0) + 1);
    if (decks.get(deck)! > (duplicate ? 2 : 1)) return `deck ${deck} was dealt more than ${duplicate ? "twice" : "once"} (hand ${n})`;
  }
  return null;
}

/** Every hand history of a match, page after page (a match may have any number of hands). */
export async function allHands(fetchPage: (after: number) => Promise<DealtHand[]>): Promise<DealtHand[]> {
  const hands: DealtHand[] = [];
  for (let after = 0; ; ) {
    const page = await fetchPage(after);
    if (page.length === 0) return hands;
    hands.push(...page);
    after = page[page.length - 1].handNumber;
  }
}

export const verify: Command = {
  name: "verify",
  summary: "Check every card of a completed match against its revealed deck secret (exit 1 names the first bad hand).",
  usage: "verify <matchId>",
  details:
    "Fetches GET /api/matches/<id>/fairness and every page of the hand histories, checks that SHA-256(secret) is the commitment published at match start, that every hand recorded is there, that no hand number (recorded or voided by a resumption) and no deck was dealt twice, and re-derives every hand's deck; the decks of voided hands are printed, to compare with what your bot saw. Logged in, your own bots' hidden hole cards are checked too.",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const matchId = parsed.positionals[0];
    if (!matchId) {
      ctx.err("which match? give a match id");
      return 2;
    }
    const api = ctx.api(parsed);
    const path = `/api/matches/${encodeURIComponent(matchId)}`;
    const fairness = await api.request<FairnessRecord>("GET", `${path}/fairness`);
    // A copy of a duplicate match: its twin's record must commit to the same secret (each copy's hands are checked as any match's).
    const twin = fairness.twinMatchId ? await api.request<FairnessRecord>("GET", `/api/matches/${encodeURIComponent(fairness.twinMatchId)}/fairness`) : null;
    // A hosted round's match: every match of the round must commit to the same secret.
    const roundMates = fairness.round
      ? await Promise.all(fairness.round.matchIds.filter((id) => id !== matchId).map((id) => api.request<FairnessRecord>("GET", `/api/matches/${encodeURIComponent(id)}/fairness`)))
      : [];
    const hands = await allHands(
      async (after) =>
        (await api.request<{ hands: DealtHand[] }>("GET", `${path}/hands?limit=${HANDS_PER_PAGE}&after=${after}`, undefined, { auth: "if-logged-in" })).hands,
    );
    const mismatch =
      (twin && pairMismatch(fairness, twin)) ||
      (fairness.round && roundMismatch(fairness, roundMates)) ||
      (fairness.handsPlayed !== undefined && fairness.handsPlayed !== hands.length
        ? `the match recorded ${fairness.handsPlayed} hands, the histories hold ${hands.length}`
        : firstMismatch(fairness, hands));
    if (mismatch) {
      ctx.err(`verify ${matchId}: FAILED — ${mismatch}`);
      return 1;
    }
    const cards = hands.reduce((sum, h) => sum + h.board.length + h.events.filter((e) => e.type === "hole_cards" && e.cards).length * 2, 0);
    const voided = fairness.voidedHands ?? [];
    ctx.out(`verify ${matchId}: OK — commitment ${fairness.deckCommitment.slice(0, 16)}… matches; ${hands.length} hands, ${cards} cards re-derived (${fairness.algorithm})`);
    if (twin) ctx.out(`  a copy of a duplicate match: the other copy ${twin.matchId} committed to the same secret (verify it too: its hand n is this match's hand-n deck, the seats swapped)`);
    if (fairness.round) ctx.out(`  round ${fairness.round.round} of ${fairness.round.tournamentId}: all ${fairness.round.matchIds.length} of its matches committed to this same secret, revealed after the round's last match`);
    if (voided.length > 0) {
      ctx.out(`  ${voided.length} voided hand(s) (${describeNumbers(voided)}): dealt perhaps before their host died, never recorded, and no deck dealt twice; their decks:`);
      const duplicate = fairness.algorithm === DUPLICATE_DECK_ALGORITHM;
      for (const n of voided) ctx.out(`  hand ${n}: ${fairDeck(fairness.deckSecret, dealOfHand(n, duplicate)).map(formatCard).join(" ")}`);
    }
    return 0;
  },
};

/** 3, 4, 5, 9 → "3–5, 9". */
function describeNumbers(numbers: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    runs.push(i === j ? `${numbers[i]}` : `${numbers[i]}–${numbers[j]}`);
    i = j + 1;
  }
  return runs.join(", ");
}
