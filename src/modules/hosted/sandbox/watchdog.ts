/**
 * What the pool's watchdog decides about the call at the head of a worker's queue, every 25 ms
 * (pool.ts `watch`): whether it holds up another match (preempted: its seat moves to a worker of
 * its own), and whether it is stuck where the interrupt handler cannot stop it (its worker is
 * replaced). Also the shapes both sides share: a worker's slot and its pending calls.
 */
import type { CpuClock } from "./cpu-clock.ts";
import { CONTROL_RUNNING, type GuestLogLine, type WorkerReply } from "./messages.ts";

/** A call of guest code: the watchdog watches it, its log lines go to `onLog` as they are written. */
export interface GuestCall {
  /** Its CPU budget. */
  budgetMs: number;
  /** Whose call it is (the group: a match), for preemption; none for a load. */
  owner?: CallOwner;
  onLog(line: GuestLogLine): void;
}

export interface Pending {
  resolve(reply: WorkerReply): void;
  reject(error: Error): void;
  call?: GuestCall;
  /** When it reached the head of its worker's queue (it runs from then on). */
  runningSince?: number;
}

/** The group (a match) whose guest call it is. */
export interface CallOwner {
  group: string | null;
}

/**
 * A guest call that has run this long while a call of another match waits behind it on the same
 * worker is stopped (`preempted`): its seat moves to a worker of its own and runs it again there,
 * with the rest of its budget. A decision at play speed takes well under a millisecond.
 */
export const PREEMPT_AFTER_MS = 50;
/**
 * The watchdog's last resort, on the wall clock: a call still running this long after it began is
 * ended whatever its CPU time says (a thread starved of cores for good). Far past the CPU budget,
 * which a long call reaches first even on a busy machine (it is raised back from idle priority after
 * two budgets of wall time, guest-context.ts).
 */
const LAST_RESORT_BUDGETS = 4;
const LAST_RESORT_EXTRA_MS = 10_000;
/** A worker whose WebAssembly memory grew past this is recycled once it holds no context (memory never shrinks otherwise); 16 MiB is its start. */
export const RECYCLE_ABOVE_BYTES = 32 * 1024 * 1024;
/** A worker whose memory grew past this takes no new match while another can: it empties, and is recycled. */
export const DRAIN_ABOVE_BYTES = 96 * 1024 * 1024;

export interface Slot {
  worker: Worker;
  /** Retired while idle (its thread ended); pick() starts a new worker in its place when needed. */
  dormant: boolean;
  /** Given to one seat alone (a bot moved off a shared worker): pick() gives it to no one else. */
  exclusive: boolean;
  /** Shared with the worker: the id of a call to stop, the id of the call it runs and its CPU clock then (messages.ts). */
  words: Int32Array;
  cpuAt: Float64Array;
  /** This worker's pages in the memory ledger (returned when its thread has ended). */
  cells: SharedArrayBuffer;
  /** The worker thread's CPU clock, read from this thread (null: the watchdog goes by the wall clock). */
  cpuClock: CpuClock | null;
  /** Its WebAssembly memory, as its last reply said. */
  memoryBytes: number;
  ready: Promise<void>;
  /** Bumped on every replacement: a context opened under an older generation is gone. */
  generation: number;
  contexts: number;
  /** Contexts per group (a match's seats): a group's contexts share one worker. */
  groups: Map<string, number>;
  /** In send order: the worker answers in order, so the first is the one running. */
  pending: Map<number, Pending>;
}

/**
 * A guest call holds up another match: it has run PREEMPT_AFTER_MS on a shared worker and a call
 * of another group waits behind it. Its seat moves to a worker of its own (seat.ts).
 */
export function holdsUpAnotherMatch(s: Slot, head: Pending, ran: number): boolean {
  if (s.exclusive || s.pending.size < 2 || !head.call?.owner || ran < PREEMPT_AFTER_MS) return false;
  const group = head.call.owner.group;
  return [...s.pending.values()].some((p) => p.call?.owner !== undefined && p.call.owner.group !== group);
}

/**
 * Whether the call at a worker's head is stuck where the interrupt handler cannot stop it: it has
 * used its CPU budget and the grace on top in the worker's own CPU time (a worker waiting for a
 * core is not stuck, and is not ended for it), or the wall-clock last resort has passed. Null: not stuck.
 */
export function stuckReason(s: Slot, headId: number, budgetMs: number, ran: number, graceMs: number): string | null {
  // CPU time never outruns the wall clock: before this, no reading is needed.
  if (ran <= budgetMs + graceMs) return null;
  if (ran > LAST_RESORT_BUDGETS * budgetMs + LAST_RESORT_EXTRA_MS) return `did not answer in ${Math.round(ran / 1000)} s`;
  if (s.cpuClock === null) return ran > 2 * budgetMs + graceMs ? "stopped answering" : null;
  if (Atomics.load(s.words, CONTROL_RUNNING) !== headId) return null;
  let used: number;
  try {
    used = s.cpuClock() - s.cpuAt[0];
  } catch {
    return null; // its thread is ending: the worker's close event says what happens
  }
  return used > budgetMs + graceMs ? `ran ${Math.round(used)} ms of CPU time without being interruptible` : null;
}
