/**
 * bun run bench:hosted — the cost of hosting a bot in the sandbox:
 *   1. decisions/second for examples/starter-bot.ts in a QuickJS context (through the worker
 *      pool, one seat, one decision at a time) vs the same bot called in-process;
 *   2. memory per context with HOSTED_CONTEXTS (default 200) contexts open (a hosted seat is one
 *      context; a duplicate match is two matches, a context per copy);
 *   3. hosted bots at tables, end to end (bench/hosted-tables.ts).
 */
import starter from "../examples/starter-bot.ts";
import { decisionState } from "@poker-bots/sdk/state";
import { legalize } from "@poker-bots/sdk/session";
import { silentLogger } from "@poker-bots/sdk/logger";
import { sampleRequest } from "../src/modules/hosted/sample.ts";
import { bundleBot, createSandbox } from "../src/modules/hosted/sandbox/index.ts";
import { benchHostedTables } from "./hosted-tables.ts";

const DECISIONS = Number(process.env.HOSTED_DECISIONS ?? 5_000);
const CONTEXTS = Number(process.env.HOSTED_CONTEXTS ?? 200);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const requests = Array.from({ length: 2 }, (_, i) => sampleRequest(i === 0 ? "preflop" : "flop"));

// In-process: what the SDK does for a remote bot, minus the socket.
function inProcess(n: number): number {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const request = { ...requests[i % 2], requestId: `p${i}` };
    const state = decisionState(request, { botId: "b", matchId: request.matchId, config: null, handNumber: 1, button: null, history: [] });
    legalize(starter.decide(state), state, silentLogger);
  }
  return n / ((performance.now() - started) / 1000);
}

const built = await bundleBot(await Bun.file(new URL("../examples/starter-bot.ts", import.meta.url)).text());
if (!built.ok) throw new Error(JSON.stringify(built.errors));
console.log(`bundle: ${(built.code.length / 1024).toFixed(1)} KiB`);

const sandbox = createSandbox();
try {
  const openStarted = performance.now();
  const seat = await sandbox.open(built.code);
  console.log(`open one context (load the bundle): ${(performance.now() - openStarted).toFixed(0)} ms`);
  for (let i = 0; i < 200; i++) await seat.decide({ ...requests[i % 2], requestId: `w${i}` }); // warm-up
  inProcess(2_000);

  let sandboxMs = 0;
  const started = performance.now();
  for (let i = 0; i < DECISIONS; i++) {
    const d = await seat.decide({ ...requests[i % 2], requestId: `h${i}` });
    if (!d.ok) throw new Error(`hosted decision failed: ${d.kind} ${d.message}`);
    sandboxMs += d.ms;
  }
  const wallS = (performance.now() - started) / 1000;
  const hosted = DECISIONS / wallS;
  const local = inProcess(DECISIONS);
  console.log(`decisions/s hosted (round trip through the pool): ${hosted.toFixed(0)}  (${((wallS * 1000) / DECISIONS).toFixed(3)} ms each, of which ${(sandboxMs / DECISIONS).toFixed(3)} ms in the sandbox)`);
  console.log(`decisions/s in-process:                           ${local.toFixed(0)}  (${(1000 / local).toFixed(4)} ms each)`);
  console.log(`hosted / in-process: 1 / ${(local / hosted).toFixed(0)}`);
  await seat.close();

  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;
  const seats = [];
  const openAll = performance.now();
  for (let i = 0; i < CONTEXTS; i++) {
    const s = await sandbox.open(built.code);
    await s.decide({ ...requests[i % 2], requestId: `m${i}` });
    seats.push(s);
  }
  const openSeconds = (performance.now() - openAll) / 1000;
  Bun.gc(true);
  const stats = await sandbox.stats();
  const rssAfter = process.memoryUsage().rss;
  console.log(`${CONTEXTS} contexts open (each loaded and one decision made) in ${openSeconds.toFixed(1)} s on ${stats.workers} worker(s)`);
  console.log(`  QuickJS heap in use: ${mib(stats.heapBytes)} MiB total, ${(stats.heapBytes / CONTEXTS / 1024).toFixed(0)} KiB per context (limit ${sandbox.limits.memoryBytes >> 20} MiB each)`);
  console.log(`  process RSS growth:  ${mib(rssAfter - rssBefore)} MiB total, ${((rssAfter - rssBefore) / CONTEXTS / 1024).toFixed(0)} KiB per context`);
  console.log(`  sandbox memory (the workers' WebAssembly memory, what SANDBOX_MEMORY_MIB bounds): ${mib(stats.memoryBytes)} MiB of ${mib(sandbox.memory.totalBytes)} MiB`);
  await Promise.all(seats.map((s) => s.close()));
} finally {
  await sandbox.close();
}

await benchHostedTables();
