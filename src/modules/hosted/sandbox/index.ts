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
import { resolveLimits, type SandboxLimits } from "./limits.ts";
import { SandboxPool } from "./pool.ts";
import { HostedSeat } from "./seat.ts";

export { bundleBot, type BuildProblem, type BuildResult } from "./bundle.ts";
export { DEFAULT_LIMITS, type SandboxLimits } from "./limits.ts";
export type { FailureKind } from "./messages.ts";
export { HostedSeat, SandboxOpenError, type Decision, type DecideOptions, type Delivery, type HostedLogLine } from "./seat.ts";

export interface SandboxOptions {
  /** Worker threads; default: the cores but one (at least one), so the event loop keeps a core. */
  workers?: number;
  limits?: Partial<SandboxLimits>;
  /** How far past a call's budget a silent worker is presumed stuck and replaced. */
  graceMs?: number;
}

export interface SandboxStats {
  workers: number;
  contexts: number;
  /** QuickJS heap in use across all contexts (each is capped at limits.memoryBytes). */
  heapBytes: number;
  workerReplacements: number;
}

export interface Sandbox {
  readonly limits: SandboxLimits;
  /** A fresh context running `code` (a bundle from bundleBot). Rejects with SandboxOpenError if it cannot load. */
  open(code: string, options?: { botId?: string | null }): Promise<HostedSeat>;
  stats(): Promise<SandboxStats>;
  close(): Promise<void>;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const limits = Object.freeze(resolveLimits(options.limits));
  const pool = new SandboxPool(options.workers ?? Math.max(1, availableParallelism() - 1), options.graceMs ?? 1_000);
  return {
    limits,
    open: (code, openOptions = {}) => HostedSeat.open(pool, code, limits, openOptions.botId ?? null),
    async stats() {
      const stats: SandboxStats = { workers: pool.size, contexts: 0, heapBytes: 0, workerReplacements: pool.replacements };
      for (let slot = 0; slot < pool.size; slot++) {
        const reply = await pool.request(slot, { op: "stats" });
        if (reply.ok && reply.stats) {
          stats.contexts += reply.stats.contexts;
          stats.heapBytes += reply.stats.heapBytes;
        }
      }
      return stats;
    },
    close: () => pool.close(),
  };
}
