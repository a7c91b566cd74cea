/**
 * The OS priority of the calling thread (a worker thread's own, not the process's). Linux names a
 * thread's id in /proc/thread-self; elsewhere there is no thread id to name and nothing changes.
 * Lowering needs no privilege; raising back needs CAP_SYS_NICE.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

const threadId = (() => {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return null;
  }
})();

/** Sets this thread's nice value; false where it cannot (not Linux, or not permitted). */
export function setThreadNice(nice: number): boolean {
  if (threadId === null) return false;
  try {
    setPriority(threadId, nice);
    return true;
  } catch {
    return false;
  }
}

/** Linux's scheduling policies (sched(7)): the normal one, and the one that runs only on an idle core. */
const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

type SetScheduler = (tid: number, policy: number, param: Int32Array) => number;
let setScheduler: SetScheduler | null | undefined;

/** libc's sched_setscheduler through bun:ffi, loaded at the first use; null where there is none. */
function schedSetScheduler(): SetScheduler | null {
  if (setScheduler !== undefined) return setScheduler;
  setScheduler = null;
  if (threadId === null) return null;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen("libc.so.6", { sched_setscheduler: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
    setScheduler = (tid, policy, param) => libc.symbols.sched_setscheduler(tid, policy, param);
  } catch {
    setScheduler = null;
  }
  return setScheduler;
}

/**
 * Puts this thread in SCHED_IDLE (`idle`: it runs only when a core has nothing else to run, below
 * even nice 19, which still takes ~1.5 % of a busy core and a share of every idle moment), or back
 * in the normal policy. False where it cannot (not Linux, no libc to call, or not permitted).
 */
export function setThreadIdle(idle: boolean): boolean {
  const call = schedSetScheduler();
  if (call === null || threadId === null) return false;
  try {
    return call(threadId, idle ? SCHED_IDLE : SCHED_OTHER, new Int32Array(1)) === 0;
  } catch {
    return false;
  }
}
