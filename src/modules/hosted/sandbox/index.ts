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
 * The limits are the sandbox's, the same for every seat it opens (docs/HOSTED.md).
 */
import { availableParallelism } from "node:os";
import { resolveLimits, type MatchLogBudget, type SandboxLimits } from "./limits.ts";
import { SandboxPool } from "./pool.ts";
import { HostedSeat } from "./seat.ts";

export { bundleBot, type BuildProblem, type BuildResult } from "./bundle.ts";
export { DEFAULT_LIMITS, MatchLogBudget, type SandboxLimits } from "./limits.ts";
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
  /** How far past a call's budget a silent worker is presumed stuck and replaced. */
  graceMs?: number;
}

export interface SandboxStats {
  workers: number;
  contexts: number;
  /** QuickJS heap in use across all contexts (each is capped at limits.memoryBytes). */
  heapBytes: number;
}

export interface Sandbox {
  readonly limits: SandboxLimits;
  /**
   * A fresh context running `code` (a bundle from bundleBot). Rejects with SandboxOpenError if it
   * cannot load. `group`: contexts of one group (a match's seats) share a worker (SandboxPool.pick).
   * `logBudget`: the bot's log budget for the match, shared by a duplicate match's two copies
   * (default: the seat's own).
   */
  open(code: string, options?: { botId?: string | null; group?: string | null; logBudget?: MatchLogBudget }): Promise<HostedSeat>;
  stats(): Promise<SandboxStats>;
  /** Counts since the sandbox started, read without asking the workers (metrics). */
  counts(): { preemptions: number; workerReplacements: number };
  close(): Promise<void>;
}

/** The pool's worker threads start at the first `open` (an app that never hosts a bot starts none). */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const limits = Object.freeze(resolveLimits(options.limits));
  const workers = options.workers ?? Math.max(2, availableParallelism() - 1);
  const maxWorkers = Math.max(workers, options.maxWorkers ?? Math.max(4, 2 * availableParallelism()));
  let started: SandboxPool | null = null;
  const pool = () => (started ??= new SandboxPool(workers, maxWorkers, options.graceMs ?? 1_000, options.idleWorkerMs ?? 30_000));
  return {
    limits,
    open: (code, openOptions = {}) => HostedSeat.open(pool(), code, limits, openOptions.botId ?? null, openOptions.group ?? null, openOptions.logBudget),
    counts: () => ({ preemptions: started?.preemptions ?? 0, workerReplacements: started?.replacements ?? 0 }),
    async stats() {
      const live = started?.liveSlots() ?? [];
      const stats: SandboxStats = { workers: live.length, contexts: 0, heapBytes: 0 };
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
      await started?.close();
    },
  };
}
