/** What the pool (main thread) and a sandbox worker say to each other. Plain data, structured-cloned. */
import type { CpuClockKind } from "./cpu-clock.ts";
import type { SandboxLimits } from "./limits.ts";
import type { MemoryBudget } from "./memory.ts";

/** Why a decision (or a hook, or loading the bot) produced no usable answer. */
export type FailureKind =
  | "timeout" // ran past its CPU budget (interrupted), or never answered
  | "memory" // hit its memory limit, or the sandbox's (memory.ts)
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

/**
 * The words a worker and the pool share (an Int32Array over `control`): the id of a call the pool
 * wants stopped (preemption), and the id of the call the worker runs now, with the worker's CPU
 * clock when it began (a Float64 at byte CONTROL_CPU_AT), which the watchdog reads.
 */
export const CONTROL_PREEMPT = 0;
export const CONTROL_RUNNING = 1;
export const CONTROL_CPU_AT = 8;
export const CONTROL_BYTES = 16;

export type ToWorker =
  /** First message to a worker: the shared words and the memory ledger (memory.ts); `nice`: the thread's priority for good (the validation worker's). */
  | { op: "setup"; control: SharedArrayBuffer; ledger: SharedArrayBuffer; cells: SharedArrayBuffer; budget: MemoryBudget; nice: number | null }
  | { op: "open"; id: number; contextId: number; code: string; limits: SandboxLimits; nowMs: number }
  | { op: "call"; id: number; contextId: number; message: string; budgetMs: number; nowMs: number }
  | { op: "close"; id: number; contextId: number }
  | { op: "stats"; id: number };

export interface GuestAnswer {
  /** decide() returned (its value is `answer`); false for hooks and for decisions that failed. */
  decided: boolean;
  answer: unknown;
}

/**
 * A worker's first words: its thread id and which CPU counter it reads, so the pool can read the
 * same one (cpu-clock.ts).
 */
export interface WorkerReady {
  ready: true;
  tid: number | null;
  clock: CpuClockKind;
}

/** A bot's log line, posted the moment it is written: a call that never answers keeps it (its worker may be replaced). */
export interface WorkerLogLine {
  log: GuestLogLine;
  id: number;
}

/** Every reply says how much WebAssembly memory its worker holds now (the pool recycles workers that grew). */
export type WorkerReply =
  | { id: number; ok: true; ms: number; memoryBytes: number; result?: GuestAnswer; stats?: WorkerStats }
  | { id: number; ok: false; ms: number; memoryBytes: number; kind: FailureKind; message: string; fatal?: boolean };

export type FromWorker = WorkerReady | WorkerLogLine | WorkerReply;

export interface WorkerStats {
  contexts: number;
  /** Sum of the QuickJS heaps (malloc_size) of the worker's contexts. */
  heapBytes: number;
}
