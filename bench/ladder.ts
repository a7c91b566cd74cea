/**
 * `bun run bench:ladder` (issue 25): the ladder on one node and on three (real node processes, one
 * Postgres, one NATS), with 100 entered heads-up bots: BENCH_LADDER_REMOTE (70) remote WebSocket
 * bots of 20 developers, run by a separate load process (bench/ladder-load.ts, check/call at once,
 * so the nodes' CPU is measured apart), and 30 built-ins of 10 other developers; the house's 5
 * built-ins join by themselves. Short matches (LADDER_HANDS 20, 1 s per action, pairing every
 * 250 ms), each run BENCH_LADDER_SECONDS (75) from the entries on. Measured from outside (see
 * bench/ladder-figures.ts): time from entry to the first match, idle gaps between an available
 * bot's matches, pairing variety, matches per minute, CPU of each process; on three nodes the
 * matchmaker's node is killed (SIGKILL) halfway: time until another node pairs, interrupted matches
 * resumed, double seatings, the ledger's audit; and on three nodes how the ladder's tables spread
 * over the nodes (placement.ts), before the kill and after it. Figures only, not a test.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestCluster } from "../tests/support/nodes";
import { CHEAP_PASSWORDS, ROOT } from "./support";
import { cpuMs, dist, figures, machineJiffies, percentile, postgresCpu, postgresDelta, s, type RemoteRecord } from "./ladder-figures";

const SECONDS = Number(process.env.BENCH_LADDER_SECONDS ?? 75);
const REMOTE = Number(process.env.BENCH_LADDER_REMOTE ?? 70);
const BUILTIN = 100 - REMOTE;
const REMOTE_DEVS = 20;
const BUILTIN_DEVS = 10;
const HANDS = process.env.LADDER_HANDS ?? "20";
const ENV = { ...CHEAP_PASSWORDS, FAUCET_AMOUNT: "100000000", LADDER_HANDS: HANDS, LADDER_PAIR_EVERY_MS: process.env.LADDER_PAIR_EVERY_MS ?? "250", LADDER_ACTION_TIMEOUT_MS: "1000" };
const STRATEGIES = ["random", "caller", "tight", "raiser"];

async function created(result: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const { status, body } = await result;
  if (status !== 201) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

function lineReader(stream: ReadableStream<Uint8Array>) {
  const lines = (async function* () {
    let buffer = "";
    for await (const chunk of stream) {
      buffer += new TextDecoder().decode(chunk);
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        yield buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
      }
    }
  })();
  return async () => JSON.parse((await lines.next()).value as string);
}

async function matchmakers(cluster: TestCluster): Promise<string[]> {
  const found: string[] = [];
  for (const id of cluster.nodes.keys()) if ((await cluster.api(id, "GET", "/health").catch(() => null))?.body?.matchmaker) found.push(id);
  return found;
}

async function run(nodes: number) {
  const cluster = await TestCluster.create(`bench_ladder_${nodes}`, ENV);
  const ids = Array.from({ length: nodes }, (_, i) => `ladder_${i}`);
  try {
    await Promise.all(ids.map((id) => cluster.start(id)));
    const tokens = await Promise.all(Array.from({ length: REMOTE_DEVS + BUILTIN_DEVS }, (_, i) => cluster.fundedDeveloper(ids[i % nodes]!)));
    const remote = await Promise.all(
      Array.from({ length: REMOTE }, async (_, j) => {
        const token = tokens[j % REMOTE_DEVS]!;
        const bot = await created(cluster.api(ids[j % nodes]!, "POST", "/api/bots", { token, body: { name: `remote-${j}` } }), "remote bot");
        return { botId: bot.botId as string, apiKey: bot.apiKey as string, token, node: j % nodes };
      }),
    );
    const builtins = await Promise.all(
      Array.from({ length: BUILTIN }, async (_, k) => {
        const token = tokens[REMOTE_DEVS + (k % BUILTIN_DEVS)]!;
        const bot = await created(cluster.api(ids[k % nodes]!, "POST", "/api/bots", { token, body: { name: `builtin-${k}`, strategy: STRATEGIES[k % 4] } }), "built-in bot");
        return { botId: bot.botId as string, token, node: k % nodes };
      }),
    );
    const planFile = join(tmpdir(), `ladder-plan-${process.pid}-${nodes}.json`);
    await Bun.write(planFile, JSON.stringify({ urls: ids.map((id) => cluster.url(id)), bots: remote }));
    const loader = Bun.spawn(["bun", "bench/ladder-load.ts", planFile], { cwd: ROOT, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    const next = lineReader(loader.stdout);
    const ready = await next();
    if (ready.ready !== REMOTE) throw new Error(`only ${ready.ready} of ${REMOTE} remote bots connected`);

    const pids = new Map(ids.map((id) => [id, cluster.nodes.get(id)!.child.pid]));
    const cpu0 = new Map([...pids].map(([id, pid]) => [id, cpuMs(pid)]));
    const cpuLast = new Map(cpu0);
    const loader0 = cpuMs(loader.pid);
    const machine0 = machineJiffies();
    const postgres0 = await postgresCpu(cluster);
    const t0 = Date.now();
    loader.stdin.write("enter\n");
    loader.stdin.flush();
    const builtinEnteredAt = new Map<string, number>();
    await Promise.all(
      builtins.map(async (b) => {
        builtinEnteredAt.set(b.botId, Date.now());
        await created(cluster.api(ids[(b.node + 1) % nodes]!, "POST", "/api/ladder/entries", { token: b.token, body: { botId: b.botId } }), "built-in entry");
      }),
    );
    const entered = await next();
    if (entered.entered !== REMOTE) throw new Error(`only ${entered.entered} of ${REMOTE} remote bots entered`);

    let kill: { node: string; killAt: number; interrupted: string[]; watch: Promise<{ newMatchmakerMs: number; newTableMs: number; who: string }> } | undefined;
    // Where the ladder's tables were made (issue 33: spread over the live nodes, not all on the matchmaker's): read before any takeover moves them.
    let spreadBefore: Array<{ host_id: string; n: number }> = [];
    let matchmakerBefore = "";
    if (nodes > 1) {
      await Bun.sleep(Math.max(0, t0 + (SECONDS * 1000) / 2 - Date.now()));
      const [node] = await matchmakers(cluster);
      matchmakerBefore = node ?? "";
      spreadBefore = (await cluster.sql((db) => db`select host_id, count(*)::int as n from tables where ladder is not null group by host_id order by host_id`)) as unknown as Array<{ host_id: string; n: number }>;
      if (!node) throw new Error("no matchmaker");
      cpuLast.set(node, cpuMs(pids.get(node)!));
      const killAt = Date.now();
      cluster.kill(node);
      // Read just after the kill (a dead node writes nothing, a takeover takes seconds): its tables in play at the kill.
      const interrupted = (await cluster.sql((db) => db`select id from tables where ladder is not null and host_id = ${node} and status in ('waiting', 'running')`)).map((r) => r.id as string);
      const watch = (async () => {
        let newMatchmakerMs = NaN;
        let newTableMs = NaN;
        let who = "";
        while (Date.now() - killAt < 60_000 && (Number.isNaN(newMatchmakerMs) || Number.isNaN(newTableMs))) {
          if (Number.isNaN(newMatchmakerMs)) {
            const found = await matchmakers(cluster);
            if (found.length > 0) [newMatchmakerMs, who] = [Date.now() - killAt, found.join(",")];
          }
          if (Number.isNaN(newTableMs)) {
            const [row] = await cluster.sql((db) => db`select min(created_at) as at from tables where ladder is not null and created_at > ${new Date(killAt)}`);
            if (row?.at) newTableMs = (row.at as Date).getTime() - killAt;
          }
          await Bun.sleep(100);
        }
        return { newMatchmakerMs, newTableMs, who };
      })();
      kill = { node, killAt, interrupted, watch };
    }
    await Bun.sleep(Math.max(0, t0 + SECONDS * 1000 - Date.now()));
    const tEnd = Date.now();
    for (const [id, pid] of pids) if (cluster.nodes.has(id)) cpuLast.set(id, cpuMs(pid));
    const loaderCpu = cpuMs(loader.pid) - loader0;
    const machine1 = machineJiffies();
    const postgresMs = postgresDelta(postgres0, await postgresCpu(cluster));

    // The interrupted matches: each finished on a live node?
    let resumed = "";
    if (kill) {
      const failover = await kill.watch;
      const states = async () =>
        kill!.interrupted.length === 0
          ? []
          : await cluster.sql((db) => db`select t.status, t.host_id, m.status as match_status from tables t left join matches m on m.id = t.match_id where t.id in ${db(kill!.interrupted)}`);
      const deadline = Date.now() + 30_000;
      let rows = await states();
      while (rows.some((r) => r.status === "running" || r.status === "waiting") && Date.now() < deadline) {
        await Bun.sleep(250);
        rows = await states();
      }
      // A table the dead matchmaker had not finished filling: its seated bots wait there (an open seat) until it fills or closes.
      const stranded = kill.interrupted.length === 0 ? [] : await cluster.sql((db) => db`select s.bot_id from seats s join tables t on t.id = s.table_id where t.id in ${db(kill!.interrupted)} and t.status = 'waiting' and s.status = 'open'`);
      const finishedElsewhere = rows.filter((r) => r.status === "finished" && r.host_id !== kill!.node && r.match_status === "completed").length;
      const other = rows.filter((r) => !(r.status === "finished" && r.host_id !== kill!.node && r.match_status === "completed")).map((r) => `${r.status}/${r.match_status}@${r.host_id}`);
      resumed =
        `  kill -9 of the matchmaker's node ${kill.node} at +${((kill.killAt - t0) / 1000).toFixed(1)} s: another matchmaker (${failover.who}) after ${s(failover.newMatchmakerMs)} (target < 10 s), ` +
        `first new ladder table after ${s(failover.newTableMs)}\n` +
        `  interrupted matches (its tables waiting/running at the kill): ${kill.interrupted.length}, finished on a live node with a completed match: ${finishedElsewhere}` +
        (other.length ? `, others (status/match@host): ${other.join(" ")}; bots left with an open seat at a waiting table: ${stranded.length}` : "");
    }

    const spreadAfter = kill
      ? ((await cluster.sql((db) => db`select host_id, count(*)::int as n from tables where ladder is not null and created_at > ${new Date(kill!.killAt)} group by host_id order by host_id`)) as unknown as Array<{ host_id: string; n: number }>)
      : ((await cluster.sql((db) => db`select host_id, count(*)::int as n from tables where ladder is not null group by host_id order by host_id`)) as unknown as Array<{ host_id: string; n: number }>);
    const spread = (rows: Array<{ host_id: string; n: number }>) => {
      const total = rows.reduce((a, r) => a + r.n, 0);
      const max = Math.max(...rows.map((r) => r.n));
      return `${rows.map((r) => `${r.host_id}${r.host_id === matchmakerBefore ? " (matchmaker)" : ""} ${r.n} (${((r.n / total) * 100).toFixed(0)} %)`).join(", ")}; the busiest node has ${((max / total) * 100).toFixed(0)} %`;
    };
    loader.stdin.end();
    const { records } = (await next()) as { records: RemoteRecord[] };
    await loader.exited;
    const f = await figures(cluster, { remote: records, builtinEnteredAt, t0, tEnd, killAt: kill?.killAt });
    const audit = await cluster.audit();

    const windowMs = tEnd - t0;
    const nodeCpu = ids.map((id) => `${id} ${(((cpuLast.get(id)! - cpu0.get(id)!) / windowMs) * 100).toFixed(0)} %`).join(", ");
    const nodeCpuMs = ids.reduce((a, id) => a + cpuLast.get(id)! - cpu0.get(id)!, 0);
    const machineBusy = ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * 100;
    const firstAll = [...f.firstRemote, ...f.firstBuiltin];
    const gapsAll = [...f.gapsRemote, ...f.gapsBuiltin];
    const ok = (good: boolean) => (good ? "ok" : "MISSED");
    const matchP50 = percentile(f.matchMs, 50);
    console.log(`\nbench:ladder — ${nodes} node(s), ${f.n} heads-up entries (${REMOTE} remote in a separate process, ${BUILTIN} built-ins, ${REMOTE_DEVS + BUILTIN_DEVS} developers + the house's 5), ${HANDS} hands a match, ${(windowMs / 1000).toFixed(0)} s`);
    console.log(`  time from entry to the first match: ${dist(firstAll)} — p95 target < 5 s: ${ok(percentile(firstAll, 95) < 5000)}`);
    console.log(`     remote (load process clock): ${dist(f.firstRemote)}; built-ins (seat opened_at): ${dist(f.firstBuiltin)}; entries with no match: ${f.neverPlayed}`);
    console.log(`  idle gap between an available bot's matches: ${dist(gapsAll)} — p95 target < 3 s: ${ok(percentile(gapsAll, 95) < 3000)}`);
    console.log(`     remote (match_ended → next match_started): ${dist(f.gapsRemote)}; built-ins (seat closed → next opened): ${dist(f.gapsBuiltin)}`);
    if (kill) console.log(`     gaps spanning the kill (left out above; remote bots of the dead node reconnect elsewhere): ${dist(f.gapsAcrossKill)}`);
    console.log(
      `  variety: ${f.pairsMet} pairs met, ${f.meanPlayed.toFixed(1)} matches a bot; max (meetings ÷ uniform) over every pair ${f.maxRatio.toFixed(2)} (${f.maxPair}; uniform expectation ${f.maxRatioExpected.toFixed(2)}: ` +
        `the ratio means little below 1 meeting); over the ${f.pairsAtLeastOne} pairs expected ≥ 1: ${f.pairsAtLeastOne ? f.maxRatioAtLeastOne.toFixed(2) : "none (too few matches a bot for any pair to expect a meeting)"} — target ≤ 2`,
    );
    console.log(`  rating gap (final mu − 3σ): paired ${f.ratingGapActual.toFixed(2)} vs random pairs ${f.ratingGapRandom.toFixed(2)}`);
    console.log(`  throughput: ${f.matchesDone} ladder matches completed = ${f.matchesPerMin.toFixed(0)} matches/min, ${f.handsPerSec.toFixed(0)} hands/s; a match lasts ${dist(f.matchMs)} (${(matchP50 / Number(HANDS)).toFixed(0)} ms a hand)`);
    console.log(
      `  where the time goes: bots seated ${(f.seatedShare * 100).toFixed(0)} % of the run (waiting the rest); CPU (% of one core) ${nodeCpu}, load process ${((loaderCpu / windowMs) * 100).toFixed(0)} %, Postgres backends of this database ${((postgresMs / windowMs) * 100).toFixed(0)} %; ` +
        `machine busy ${machineBusy.toFixed(0)} % of 2 cores (Postgres and anyone else included); nodes' CPU ${(nodeCpuMs / Math.max(1, f.handsPerSec * (windowMs / 1000))).toFixed(2)} ms a hand`,
    );
    if (spreadBefore.length > 0) console.log(`  ladder tables by node, made before the kill: ${spread(spreadBefore)} (target: none above ~60 %)`);
    console.log(`  ladder tables by node${kill ? ", made after the kill (the survivors)" : ""}: ${spread(spreadAfter)}`);
    if (resumed) console.log(resumed);
    console.log(`  double seatings: bots with overlapping seats ${f.overlaps}, with two open seats now ${f.openTwice}; ladder tables with one developer twice ${f.doubledTables}; audit: ${audit.problems.length === 0 ? "clean" : JSON.stringify(audit.problems)}`);
    const maxShare = (rows: Array<{ n: number }>) => (rows.length ? Math.max(...rows.map((r) => r.n)) / rows.reduce((a, r) => a + r.n, 0) : 1);
    return { nodes, busiestNodeShareBeforeKill: spreadBefore.length ? Number(maxShare(spreadBefore).toFixed(2)) : null, firstP95S: percentile(firstAll, 95) / 1000, gapP95S: percentile(gapsAll, 95) / 1000, maxRatio: f.maxRatio, maxRatioAtLeastOne: f.maxRatioAtLeastOne, matchesPerMin: Math.round(f.matchesPerMin), handsPerSec: Math.round(f.handsPerSec), overlaps: f.overlaps, auditProblems: audit.problems.length };
  } finally {
    await cluster.close();
  }
}

const results = [];
for (const nodes of (process.env.BENCH_LADDER_NODES ?? "1,3").split(",").map(Number)) results.push(await run(nodes));
console.log(JSON.stringify(results));
