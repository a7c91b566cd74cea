// Checks every card of a completed match against its revealed deck secret (Node 18+ or Bun). Usage: node verify-deals.mjs <server> <matchId> [token]
import { createHash, createHmac } from "node:crypto";
const [server, matchId, token] = process.argv.slice(2);
const get = async (path) => (await fetch(`${server}/api/matches/${matchId}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })).json();
const { deckSecret, deckCommitment, algorithm, handsPlayed, voidedHands = [], twinMatchId, round } = await get("/fairness");
const dealOf = (hand) => (algorithm.endsWith("-duplicate") ? Math.ceil(hand / 2) : hand); // a one-match duplicate (before the two copies) dealt each deck twice
for (const id of [twinMatchId, ...(round?.matchIds ?? [])].filter(Boolean)) // the other copy of a duplicate pair, every match of a hosted round: one secret
  if ((await (await fetch(`${server}/api/matches/${id}/fairness`)).json()).deckCommitment !== deckCommitment) throw new Error(`match ${id} (the other copy, or of the round) committed to another secret`);
const key = Buffer.from(deckSecret, "hex"); // the token adds your own bots' hidden cards; the commitment is the secret's SHA-256:
if (createHash("sha256").update(key).digest("hex") !== deckCommitment) throw new Error("the secret does not match the commitment");
const names = [..."23456789TJQKA"].flatMap((rank) => [..."cdhs"].map((suit) => rank + suit)); // card id = rank * 4 + suit
function deckOf(handNumber) {
  const deck = names.slice();
  let block, offset = 32, k = 0;
  const next = () => {
    if (offset === 32) [block, offset] = [createHmac("sha256", key).update(`hand ${handNumber} block ${k++}`).digest(), 0];
    return block.readUInt32BE((offset += 4) - 4);
  };
  for (let i = 0, w; i < 51; i++) {
    const bound = 52 - i, limit = Math.floor(2 ** 32 / bound) * bound;
    do w = next(); while (w >= limit);
    const j = i + (w % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck; }
const hands = []; // every page of the histories: hands numbered above `after`, 1,000 at a time
for (let after = 0, page; (page = (await get(`/hands?limit=1000&after=${after}`)).hands).length > 0; after = page.at(-1).handNumber) hands.push(...page);
if (hands.length !== (handsPlayed ?? hands.length)) throw new Error(`the match recorded ${handsPlayed} hands, the histories hold ${hands.length}`);
const seen = new Set(), decks = new Map(); // no deck twice: each number once (recorded, or voided by a resumption), each deck once (twice if old duplicate)
for (const n of [...hands.map((h) => h.handNumber), ...voidedHands])
  if (seen.has(n) || (decks.get(dealOf(n)) ?? 0) >= (algorithm.endsWith("-duplicate") ? 2 : 1)) throw new Error(`hand ${n}: its deck was dealt twice`); else seen.add(n), decks.set(dealOf(n), (decks.get(dealOf(n)) ?? 0) + 1);
for (const hand of hands) {
  const deck = deckOf(dealOf(hand.handNumber)), n = hand.players.length;
  const order = hand.players.map((_, i) => hand.players[(hand.players.findIndex((p) => p.seat === hand.button) + 1 + i) % n].seat);
  for (const e of hand.events.filter((e) => e.type === "hole_cards" && e.cards))
    if (e.cards.join() !== [deck[order.indexOf(e.seat)], deck[n + order.indexOf(e.seat)]].join()) throw new Error(`hand ${hand.handNumber}: seat ${e.seat}'s hole cards`);
  if (hand.board.join() !== [1, 2, 3, 5, 7].slice(0, hand.board.length).map((at) => deck[2 * n + at]).join()) throw new Error(`hand ${hand.handNumber}: board`);
}
console.log(`OK: ${hands.length} hands agree with commitment ${deckCommitment}; ${voidedHands.length} voided; no deck dealt twice`);
