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
