// Checks every card of a completed match against its revealed deck secret. Needs only Node 18+ or Bun.
// Usage: node verify-deals.mjs <server> <matchId> [token]   (the token adds your own bots' hidden cards)
import { createHash, createHmac } from "node:crypto";
const [server, matchId, token] = process.argv.slice(2);
const get = async (path) => (await fetch(`${server}/api/matches/${matchId}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })).json();
const { deckSecret, deckCommitment, algorithm } = await get("/fairness");
const dealOf = (hand) => (algorithm.endsWith("-duplicate") ? Math.ceil(hand / 2) : hand); // a duplicate match deals each deck twice
const key = Buffer.from(deckSecret, "hex");
if (createHash("sha256").update(key).digest("hex") !== deckCommitment) throw new Error("the secret does not match the commitment");
const names = [..."23456789TJQKA"].flatMap((rank) => [..."cdhs"].map((suit) => rank + suit)); // card id = rank * 4 + suit
function deckOf(handNumber) {
  const deck = names.slice();
  let block, offset = 32, k = 0;
  const next = () => {
    if (offset === 32) [block, offset] = [createHmac("sha256", key).update(`hand ${handNumber} block ${k++}`).digest(), 0];
    return block.readUInt32BE((offset += 4) - 4);
  };
  for (let i = 0; i < 51; i++) {
    const bound = 52 - i, limit = Math.floor(2 ** 32 / bound) * bound;
    let w;
    do w = next(); while (w >= limit);
    const j = i + (w % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}
const { hands } = await get("/hands");
for (const hand of hands) {
  const deck = deckOf(dealOf(hand.handNumber)), n = hand.players.length;
  const button = hand.players.findIndex((p) => p.seat === hand.button);
  const dealOrder = hand.players.map((_, i) => hand.players[(button + 1 + i) % n].seat);
  for (const e of hand.events.filter((e) => e.type === "hole_cards" && e.cards)) {
    const i = dealOrder.indexOf(e.seat);
    if (e.cards.join() !== [deck[i], deck[n + i]].join()) throw new Error(`hand ${hand.handNumber}: seat ${e.seat}'s hole cards`);
  }
  if (hand.board.join() !== [1, 2, 3, 5, 7].slice(0, hand.board.length).map((at) => deck[2 * n + at]).join()) throw new Error(`hand ${hand.handNumber}: board`);
}
console.log(`OK: ${hands.length} hands agree with commitment ${deckCommitment}`);
