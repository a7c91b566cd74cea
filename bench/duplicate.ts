// Variance control: the standard deviation of one bot's per-match profit over plain heads-up
// matches and over duplicate ones (each deal played twice, seats swapped), same two built-ins.
import { loadPlayers, playLocalMatch } from "../src/cli/local-match";

const MATCHES = Number(process.env.DUPLICATE_MATCHES ?? 200);
const HANDS = 100;
const PLAYERS = ["tight", "caller"];

async function profits(duplicate: boolean): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < MATCHES; i++) {
    const players = await loadPlayers(PLAYERS, process.cwd());
    const match = await playLocalMatch(players, { seed: `${duplicate ? "dup" : "plain"}-${i}`, hands: HANDS, timeoutMs: 1000, buyIn: 1000, smallBlind: 5, bigBlind: 10, duplicate });
    result.push(match.players[0].profit);
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
console.log(`bench:duplicate  ${MATCHES} heads-up matches each, ${PLAYERS.join(" vs ")}, up to ${HANDS} hands, 100 big blinds deep`);
console.log(`  plain      profit of ${PLAYERS[0]} per match: mean ${plain.mean.toFixed(1)}, standard deviation ${plain.sd.toFixed(1)}`);
console.log(`  duplicate  profit of ${PLAYERS[0]} per match: mean ${duplicate.mean.toFixed(1)}, standard deviation ${duplicate.sd.toFixed(1)}`);
console.log(`  duplicate / plain standard deviation: ${(duplicate.sd / plain.sd).toFixed(2)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
