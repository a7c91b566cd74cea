/** What the pool (main thread) and a sandbox worker say to each other. Plain data, structured-cloned. */
import type { SandboxLimits } from "./limits.ts";

/** Why a decision (or a hook, or loading the bot) produced no usable answer. */
export type FailureKind =
  | "timeout" // ran past its CPU budget (interrupted), or never answered
  | "memory" // hit the context's heap limit
  | "stack" // recursed past the stack limit
  | "exception" // threw (decide, a hook, or the file's top-level code)
  | "illegal" // answered something that is not a legal action of the request
  | "crashed" // the worker running it had to be replaced (the context was lost)
  | "disabled" // folded for the rest of the match after repeated failures
  | "preempted"; // stopped to free a shared worker (never the bot's failure: its seat re-runs the call on a worker of its own)

export interface GuestLogLine {
  level: "debug" | "info" | "warn" | "error";
  text: string;
}

export type ToWorker =
  /** First message to a worker: the shared word the pool writes a call's id into to stop it (SandboxPool.preemptLongCalls). */
  | { op: "preempt-flag"; flag: SharedArrayBuffer }
  | { op: "open"; id: number; contextId: number; code: string; limits: SandboxLimits }
  | { op: "call"; id: number; contextId: number; message: string; budgetMs: number; nowMs: number }
  | { op: "close"; id: number; contextId: number }
  | { op: "stats"; id: number };

export interface GuestAnswer {
  /** decide() returned (its value is `answer`); false for hooks and for decisions that failed. */
  decided: boolean;
  answer: unknown;
}

export type FromWorker =
  | { id: number; ok: true; ms: number; logs: GuestLogLine[]; result?: GuestAnswer; stats?: WorkerStats }
  | { id: number; ok: false; ms: number; logs: GuestLogLine[]; kind: FailureKind; message: string; fatal?: boolean };

export interface WorkerStats {
  contexts: number;
  /** Sum of the QuickJS heaps (malloc_size) of the worker's contexts. */
  heapBytes: number;
}
