/** CLI: check a completed match's deals against its revealed deck secret (provably fair deals). */
import { formatCard, parseCard } from "../../poker/cards";
import { deckCommitment, DUPLICATE_DECK_ALGORITHM, FAIR_DECK_ALGORITHM, fairDeck } from "../../poker/fair-deck";
import { dealOfHand } from "../../modules/tables/deals";
import { SERVER_FLAG, type Command } from "../command";

export interface FairnessRecord {
  matchId: string;
  deckCommitment: string;
  deckSecret: string;
  algorithm: string;
}

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

export const verify: Command = {
  name: "verify",
  summary: "Check every card of a completed match against its revealed deck secret (exit 1 names the first bad hand).",
  usage: "verify <matchId>",
  details:
    "Fetches GET /api/matches/<id>/fairness and the hand histories, checks that SHA-256(secret) is the commitment published at match start, and re-derives every hand's deck. Logged in, your own bots' hidden hole cards are checked too.",
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
    const { hands } = await api.request<{ hands: DealtHand[] }>("GET", `${path}/hands`, undefined, { auth: "if-logged-in" });
    const mismatch = firstMismatch(fairness, hands);
    if (mismatch) {
      ctx.err(`verify ${matchId}: FAILED — ${mismatch}`);
      return 1;
    }
    const cards = hands.reduce((sum, h) => sum + h.board.length + h.events.filter((e) => e.type === "hole_cards" && e.cards).length * 2, 0);
    ctx.out(`verify ${matchId}: OK — commitment ${fairness.deckCommitment.slice(0, 16)}… matches; ${hands.length} hands, ${cards} cards re-derived (${fairness.algorithm})`);
    return 0;
  },
};
