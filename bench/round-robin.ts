/**
 * `bun run bench:round-robin`: a 10-bot round robin (45 pairs × 4 matches × 200 hands: 36 rounds of 5
 * matches, 180 matches, 36,000 hands) of built-in bots (each its own developer) on one node, then on
 * three: wall time, hands/s, where the time goes (the nodes' and Postgres's CPU; the rounds: how long
 * a round waits for its slowest match, and the gap the director leaves between rounds), and on three
 * nodes how the matches spread over them. Every figure is measured here, from outside the nodes.
 * Stacks are deep (BENCH_RR_BUY_IN, 100,000 at blinds 5/10) so that matches play their 200 hands.
 * BENCH_RR_BOTS, BENCH_RR_MATCHES, BENCH_RR_HANDS, BENCH_RR_NODES (default "1,3") make it smaller.
 */
import { TestCluster } from "../tests/support/nodes";
import { CHEAP_PASSWORDS } from "./support";
import { cpuMs, machineJiffies, postgresCpu, postgresDelta } from "./ladder-figures";

const BOTS = Number(process.env.BENCH_RR_BOTS ?? 10);
const MATCHES_PER_PAIR = Number(process.env.BENCH_RR_MATCHES ?? 4);
const HANDS = Number(process.env.BENCH_RR_HANDS ?? 200);
const DIVISION = process.env.BENCH_RR_DIVISION ?? "open";
// Deep stacks (10,000 big blinds): a match plays its 200 hands instead of ending at the first bust.
const BUY_IN = Number(process.env.BENCH_RR_BUY_IN ?? 100_000);
// Bots that shove (random) or re-raise each other without end (raiser against raiser) end most
// matches at a bust in a few hands; callers and tight bots play the 200 hands (BENCH_RR_STRATEGIES to mix others in).
const STRATEGIES = (process.env.BENCH_RR_STRATEGIES ?? "caller,tight").split(",");
const ENV = { ...CHEAP_PASSWORDS, FAUCET_AMOUNT: "100000000", COMPETITIONS_TICK_MS: "50" };

async function ok(result: Promise<{ status: number; body: any }>, what: string, status = 201): Promise<any> {
  const answer = await result;
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function run(nodes: number) {
  const cluster = await TestCluster.create(`bench_rr_${nodes}`, ENV);
  const ids = Array.from({ length: nodes }, (_, i) => `rr_${i}`);
  try {
    for (const id of ids) await cluster.start(id);
    const creator = await cluster.fundedDeveloper(ids[0]!);
    const bots = await Promise.all(
      Array.from({ length: BOTS }, async (_, i) => {
        const token = await cluster.fundedDeveloper(ids[i % nodes]!);
        const bot = await ok(cluster.api(ids[i % nodes]!, "POST", "/api/bots", { token, body: { name: `rr-${i}`, strategy: STRATEGIES[i % STRATEGIES.length] } }), "bot");
        return { token, botId: bot.botId as string };
      }),
    );
    const created = await ok(cluster.api(ids[0]!, "POST", "/api/tournaments", { token: creator, body: { kind: "round-robin", division: DIVISION, matchesPerPair: MATCHES_PER_PAIR, handsPerMatch: HANDS, buyIn: BUY_IN, smallBlind: 5, bigBlind: 10 } }), "tournament");
    const id = created.tournamentId as string;
    for (const bot of bots) await ok(cluster.api(ids[0]!, "POST", `/api/tournaments/${id}/entries`, { token: bot.token, body: { botId: bot.botId } }), "entry");

    const pids = new Map(ids.map((node) => [node, cluster.nodes.get(node)!.child.pid]));
    const cpu0 = new Map([...pids].map(([node, pid]) => [node, cpuMs(pid)]));
    const machine0 = machineJiffies();
    const postgres0 = await postgresCpu(cluster);
    const t0 = Date.now();
    await ok(cluster.api(ids[0]!, "POST", `/api/tournaments/${id}/start`, { token: creator }), "start", 200);
    let finished: any;
    for (;;) {
      finished = (await cluster.api(ids[0]!, "GET", `/api/tournaments/${id}`)).body;
      if (finished.status === "finished") break;
      await Bun.sleep(200);
    }
    const wallMs = Date.now() - t0;
    const cpu = new Map([...pids].map(([node, pid]) => [node, cpuMs(pid) - cpu0.get(node)!]));
    const machine1 = machineJiffies();
    const postgresMs = postgresDelta(postgres0, await postgresCpu(cluster));

    const matches = await cluster.sql(
      (db) => db`select tm.round, t.host_id, m.hands_played, m.started_at, m.ended_at from tournament_matches tm join tables t on t.id = tm.table_id or t.twin_id = tm.table_id join matches m on m.table_id = t.id where tm.tournament_id = ${id}`,
    );
    const hands = sum(matches.map((m) => Number(m.hands_played)));
    const byRound = new Map<number, Array<{ start: number; end: number }>>();
    for (const m of matches) byRound.set(Number(m.round), [...(byRound.get(Number(m.round)) ?? []), { start: (m.started_at as Date).getTime(), end: (m.ended_at as Date).getTime() }]);
    const rounds = [...byRound.keys()].sort((a, b) => a - b).map((r) => byRound.get(r)!);
    const roundMs = rounds.map((ms) => Math.max(...ms.map((m) => m.end)) - Math.min(...ms.map((m) => m.start)));
    const meanMatchMs = rounds.map((ms) => sum(ms.map((m) => m.end - m.start)) / ms.length);
    const straggling = sum(roundMs.map((r, i) => r - meanMatchMs[i]!));
    const gaps = rounds.slice(1).map((ms, i) => Math.min(...ms.map((m) => m.start)) - Math.max(...rounds[i]!.map((m) => m.end)));
    const firstStart = Math.min(...rounds[0]!.map((m) => m.start));
    const lastEnd = Math.max(...rounds.at(-1)!.map((m) => m.end));
    const spread = await cluster.sql((db) => db`select t.host_id, count(*)::int as n from tournament_matches tm join tables t on t.id = tm.table_id where tm.tournament_id = ${id} group by t.host_id order by t.host_id`);
    const audit = await cluster.audit();
    const nodeCpu = ids.map((node) => `${node} ${((cpu.get(node)! / wallMs) * 100).toFixed(0)} %`).join(", ");
    const machineBusy = ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * 100;
    const s = (ms: number) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(1)} s`);
    console.log(`\nbench:round-robin — ${nodes} node(s), ${BOTS} built-in bots (${STRATEGIES.join("/")}, ${BOTS} developers), ${DIVISION} division, ${finished.matches.length} matches (${(BOTS * (BOTS - 1)) / 2} pairs × ${MATCHES_PER_PAIR}) of ${HANDS} hands in ${rounds.length} rounds`);
    console.log(`  wall time ${s(wallMs)} (start → standings frozen); ${hands} hands = ${(hands / (wallMs / 1000)).toFixed(0)} hands/s; ${matches.length} match records`);
    console.log(
      `  where the time goes: rounds ${s(sum(roundMs))} of play (a round lasts ${s(sum(roundMs) / rounds.length)} on average, its matches ${s(sum(meanMatchMs) / rounds.length)}: ${s(straggling)} waiting for each round's slowest match), ` +
        `${s(sum(gaps))} between rounds (${(sum(gaps) / Math.max(1, gaps.length)).toFixed(0)} ms each: the director's pass, the next round's tables and seats), ${s(firstStart - t0)} before the first match, ${s(t0 + wallMs - lastEnd)} after the last (results frozen, read)`,
    );
    console.log(`  CPU (% of one core over the wall time): ${nodeCpu}; Postgres backends ${((postgresMs / wallMs) * 100).toFixed(0)} %; machine busy ${machineBusy.toFixed(0)} % of its cores; nodes' CPU ${(sum([...cpu.values()]) / hands).toFixed(3)} ms a hand`);
    console.log(`  matches by node: ${spread.map((r) => `${r.host_id} ${r.n}`).join(", ")}; audit: ${audit.problems.length === 0 ? "clean" : JSON.stringify(audit.problems)}`);
    return { nodes, wallS: Number((wallMs / 1000).toFixed(1)), hands, handsPerSec: Math.round(hands / (wallMs / 1000)), matchesByNode: Object.fromEntries(spread.map((r) => [r.host_id, r.n])), auditProblems: audit.problems.length };
  } finally {
    await cluster.close();
  }
}

const results = [];
for (const nodes of (process.env.BENCH_RR_NODES ?? "1,3").split(",").map(Number)) results.push(await run(nodes));
console.log(JSON.stringify(results));
