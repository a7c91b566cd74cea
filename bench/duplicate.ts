// Variance control: the standard deviation of one bot's profit per duplicate match (two copies at twin
// tables, HANDS / 2 hands each, the second with the seats swapped and the first's decks) against the
// same without the shared decks (two plain matches of HANDS / 2 hands, seats swapped, each its own
// decks), same two built-ins: what sharing the decks takes out.
import { loadPlayers, playLocalMatch } from "../src/cli/local-match";

const MATCHES = Number(process.env.DUPLICATE_MATCHES ?? 200);
const HANDS = 100;
const PLAYERS = ["tight", "caller"];
const BUY_IN = Number(process.env.DUPLICATE_BUY_IN ?? 1_000);

async function profits(duplicate: boolean): Promise<number[]> {
  const result: number[] = [];
  const rules = { hands: HANDS / 2, timeoutMs: 1000, buyIn: BUY_IN, smallBlind: 5, bigBlind: 10 };
  for (let i = 0; i < MATCHES; i++) {
    const players = await loadPlayers(PLAYERS, process.cwd());
    if (duplicate) {
      result.push((await playLocalMatch(players, { ...rules, seed: `dup-${i}`, duplicate })).players[0].profit);
      continue;
    }
    const first = await playLocalMatch(players, { ...rules, seed: `plain-${i}-1` });
    const second = await playLocalMatch([players[1], players[0]], { ...rules, seed: `plain-${i}-2` });
    result.push(first.players[0].profit + second.players[1].profit);
  }
  return result;
}

function summary(xs: number[]) {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, sd };
}

const started = performance.now();
const plain = summary(await profits(false));
const duplicate = summary(await profits(true));
console.log(`bench:duplicate  ${MATCHES} pairs of heads-up matches each, ${PLAYERS.join(" vs ")}, up to ${HANDS / 2} hands a match, ${BUY_IN / 10} big blinds deep`);
console.log(`  own decks  profit of ${PLAYERS[0]} per pair: mean ${plain.mean.toFixed(1)}, standard deviation ${plain.sd.toFixed(1)}`);
console.log(`  duplicate  profit of ${PLAYERS[0]} per pair: mean ${duplicate.mean.toFixed(1)}, standard deviation ${duplicate.sd.toFixed(1)}`);
console.log(`  duplicate / own decks standard deviation: ${(duplicate.sd / plain.sd).toFixed(2)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
