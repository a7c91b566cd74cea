/**
 * Sandbox time: the CPU time of the worker thread a guest runs on, so a bot's budget is what it
 * computed, not how long a busy machine made it wait. Linux gives a thread's run time in
 * nanoseconds in /proc/thread-self/schedstat (its first field); where that is missing or stays at 0
 * (scheduler statistics off), /proc/thread-self/stat's user + system ticks (1/100 s); elsewhere the
 * wall clock, which is never shorter than the CPU time (a budget can only end early, never late).
 * One reading costs ~15 µs.
 *
 * The same counters can be read for another thread of the process (/proc/self/task/<tid>/…): the
 * pool's watchdog reads a worker's CPU time from the main thread (pool.ts), so a worker that waits
 * for a core on a busy machine is not taken for one that is stuck.
 */
import { readFileSync, readlinkSync } from "node:fs";

export type CpuClock = () => number;

/** Which counter a thread's clock reads (the watchdog must read the same one for the same thread). */
export type CpuClockKind = "schedstat" | "stat" | "wall";

const schedstatOf = (path: string): CpuClock => () => Number(readFileSync(path, "latin1").split(" ", 1)[0]) / 1e6;

const statOf = (path: string): CpuClock => () => {
  const stat = readFileSync(path, "latin1");
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const wall: CpuClock = () => performance.now();

/** The best clock this thread has, and which it is: tried once, at the worker's start. */
export function pickThreadCpuClock(): { clock: CpuClock; kind: CpuClockKind } {
  for (const [kind, clock] of [
    ["schedstat", schedstatOf("/proc/thread-self/schedstat")],
    ["stat", statOf("/proc/thread-self/stat")],
  ] as const) {
    try {
      const first = clock();
      const spinUntil = performance.now() + 25;
      while (performance.now() < spinUntil);
      if (Number.isFinite(first) && clock() > first) return { clock, kind };
    } catch {
      // Not Linux, or /proc is not mounted: try the next.
    }
  }
  return { clock: wall, kind: "wall" };
}

export function threadCpuClock(): CpuClock {
  return pickThreadCpuClock().clock;
}

/** This thread's id (Linux), for another thread to read its clock; null elsewhere. */
export function currentThreadId(): number | null {
  try {
    return Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    return null;
  }
}

/** Another thread's CPU clock, read with the counter that thread uses itself; null where it cannot be read (then the watchdog goes by the wall clock). */
export function cpuClockOfThread(tid: number | null, kind: CpuClockKind): CpuClock | null {
  if (tid === null || kind === "wall") return null;
  const clock = kind === "schedstat" ? schedstatOf(`/proc/self/task/${tid}/schedstat`) : statOf(`/proc/self/task/${tid}/stat`);
  try {
    return Number.isFinite(clock()) ? clock : null;
  } catch {
    return null;
  }
}
