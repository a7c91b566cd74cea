/**
 * The sandbox: the one module the rest of the service calls to run untrusted bot code.
 *
 *   const sandbox = createSandbox();                       // a pool of worker threads
 *   const built = await bundleBot(source);                 // at upload (see ../upload.ts)
 *   const seat = await sandbox.open(built.code, { botId }); // a fresh context: one bot, one match
 *   const { action, ok, kind, ms } = await seat.decide(actionRequest, { budgetMs });
 *   await seat.notify(handStarted);                        // other messages: context + hooks
 *   seat.logs(); await seat.close();
 *
 * The limits are the sandbox's, the same for every seat it opens (docs/HOSTED.md), and so is its
 * memory: every worker's WebAssembly memory together stays within `memoryBytes` (memory.ts).
 */
import { availableParallelism } from "node:os";
import { defaultSandboxMemoryMiB } from "../../../config.ts";
import { resolveLimits, type MatchLogBudget, type SandboxLimits } from "./limits.ts";
import { MemoryLedger, type MemoryBudget } from "./memory.ts";
import { SandboxPool } from "./pool.ts";
import { HostedSeat } from "./seat.ts";

export { bundleBot, type BuildProblem, type BuildResult } from "./bundle.ts";
export { DEFAULT_LIMITS, MatchLogBudget, type SandboxLimits } from "./limits.ts";
export type { MemoryBudget } from "./memory.ts";
export type { FailureKind } from "./messages.ts";
export { HostedSeat, SandboxOpenError, type Decision, type DecideOptions, type Delivery, type HostedLogLine } from "./seat.ts";

export interface SandboxOptions {
  /** Worker threads always running; default: the cores but one (the event loop keeps a core), at least two. */
  workers?: number;
  /**
   * Workers at most (default twice the cores, at least 4): each match's seats get a worker of their
   * own while there are fewer matches than this, so a bot that spends its whole budget stalls only
   * its own match; past it, matches share (a worker per match costs throughput: on 2 cores, 40
   * seats decide ~2.5× slower spread over 32 workers than over 2). A worker costs ~14 MiB; one beyond `workers` ends after idleWorkerMs idle.
   */
  maxWorkers?: number;
  /** How long a worker beyond `workers` stays idle before it ends (default 30 s). */
  idleWorkerMs?: number;
  limits?: Partial<SandboxLimits>;
  /** How much CPU time past a call's budget a worker that has not answered is presumed stuck (in native code the interrupt handler cannot reach) and replaced. */
  graceMs?: number;
  /**
   * Every worker's WebAssembly memory together (SANDBOX_MEMORY_MIB; default config.ts's defaultSandboxMemoryMiB()):
   * a growth past it is refused (the bot whose allocation asked fails with `memory`). Half of it is
   * all that bots holding more than LIGHT_CONTEXT_BYTES may grow into (memory.ts).
   */
  memoryBytes?: number;
}

/** What a bot may grow its worker's memory by before its growth counts as heavy (memory.ts): a starter bot holds ~0.6 MiB. */
export const LIGHT_CONTEXT_BYTES = 8 * 1024 * 1024;
/**
 * What a bot may grow its worker's memory by in all, as a multiple of its heap (limits.memoryBytes,
 * which also bounds any one allocation): an array or a string that grows is copied, the old and the
 * new block alive at once: a 56 MiB array built by `fill` or `push` grows its worker by ~100 MiB.
 */
const GROWTH_PER_HEAP = 2;

export interface SandboxStats {
  workers: number;
  contexts: number;
  /** QuickJS's own count of the heap in use across all contexts (it misses some strings: memory.ts). */
  heapBytes: number;
  /** Every worker's WebAssembly memory together (the sandbox's bound is on this), and the part bots above LIGHT_CONTEXT_BYTES grew. */
  memoryBytes: number;
  heavyMemoryBytes: number;
}

export interface Sandbox {
  readonly limits: SandboxLimits;
  /**
   * A fresh context running `code` (a bundle from bundleBot). Rejects with SandboxOpenError if it
   * cannot load. `group`: contexts of one group (a match's seats) share a worker (SandboxPool.pick).
   * `logBudget`: the bot's log budget for the match, shared by a duplicate match's two copies
   * (default: the seat's own).
   */
  open(code: string, options?: OpenOptions): Promise<HostedSeat>;
  stats(): Promise<SandboxStats>;
  /** Counts since the sandbox started, read without asking the workers (metrics): `workerRecycles`, workers ended because their memory had grown. */
  counts(): { preemptions: number; workerReplacements: number; workerRecycles: number };
  readonly memory: MemoryBudget;
  /** Every worker's WebAssembly memory together now, and the heavy part (read without asking the workers). */
  memoryInUse(): { totalBytes: number; heavyBytes: number };
  close(): Promise<void>;
}

export interface OpenOptions {
  botId?: string | null;
  group?: string | null;
  logBudget?: MatchLogBudget;
  /**
   * An upload's validation (upload.ts): it runs in a worker of its own, never one a match plays in,
   * so validating uploads cannot slow a table (and a match's bots cannot slow a validation).
   */
  validation?: boolean;
  /** What Date.now() says while the file loads (a match's clock: hosted/match-clock.ts); default the host's time. */
  nowMs?: number;
}

/** Workers that validate uploads: one, started at the first upload and ended after idleWorkerMs idle. */
const VALIDATION_WORKERS = 1;
/** Their threads' nice value: a validation takes a core only when the tables leave one (its limits are CPU time: it loses nothing by it). */
const VALIDATION_NICE = 10;

/** The pool's worker threads start at the first `open` (an app that never hosts a bot starts none). */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const limits = Object.freeze(resolveLimits(options.limits));
  const workers = options.workers ?? Math.max(2, availableParallelism() - 1);
  const maxWorkers = Math.max(workers, options.maxWorkers ?? Math.max(4, 2 * availableParallelism()));
  const totalBytes = options.memoryBytes ?? defaultSandboxMemoryMiB() * 1024 * 1024;
  const memory: MemoryBudget = Object.freeze({ totalBytes, heavyBytes: Math.floor(totalBytes / 2), lightBytes: Math.min(LIGHT_CONTEXT_BYTES, limits.memoryBytes), contextBytes: Math.floor(GROWTH_PER_HEAP * limits.memoryBytes) });
  // Each worker starts with 16 MiB: with less than twice that per worker there is no room to play.
  const leastBytes = 2 * 16 * 1024 * 1024 * (2 * maxWorkers + VALIDATION_WORKERS);
  if (totalBytes < leastBytes) throw new Error(`SANDBOX_MEMORY_MIB: ${totalBytes >> 20} MiB is too little for up to ${2 * maxWorkers + VALIDATION_WORKERS} sandbox workers (at least ${leastBytes >> 20})`);
  const ledger = new MemoryLedger(memory);
  const graceMs = options.graceMs ?? 1_000;
  const idleMs = options.idleWorkerMs ?? 30_000;
  let started: SandboxPool | null = null;
  let validating: SandboxPool | null = null;
  const pool = () => (started ??= new SandboxPool(workers, maxWorkers, graceMs, idleMs, ledger));
  const validationPool = () => (validating ??= new SandboxPool(0, VALIDATION_WORKERS, graceMs, idleMs, ledger, VALIDATION_NICE));
  return {
    limits,
    memory,
    open: (code, openOptions = {}) =>
      HostedSeat.open(openOptions.validation ? validationPool() : pool(), code, limits, openOptions.botId ?? null, openOptions.group ?? null, openOptions.logBudget, openOptions.nowMs),
    memoryInUse: () => ledger.inUse(),
    counts: () => ({ preemptions: started?.preemptions ?? 0, workerReplacements: started?.replacements ?? 0, workerRecycles: started?.recycled ?? 0 }),
    async stats() {
      const live = started?.liveSlots() ?? [];
      const inUse = ledger.inUse();
      const stats: SandboxStats = { workers: live.length, contexts: 0, heapBytes: 0, memoryBytes: inUse.totalBytes, heavyMemoryBytes: inUse.heavyBytes };
      if (!started) return stats;
      for (const slot of live) {
        const reply = await started.request(slot, { op: "stats" });
        if (reply.ok && reply.stats) {
          stats.contexts += reply.stats.contexts;
          stats.heapBytes += reply.stats.heapBytes;
        }
      }
      return stats;
    },
    close: async () => {
      await Promise.all([started?.close(), validating?.close()]);
    },
  };
}
