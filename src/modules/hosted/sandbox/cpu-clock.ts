/**
 * Sandbox time: the CPU time of the worker thread a guest runs on, so a bot's budget is what it
 * computed, not how long a busy machine made it wait. Linux gives a thread's run time in
 * nanoseconds in /proc/thread-self/schedstat (its first field); where that is missing or stays at 0
 * (scheduler statistics off), /proc/thread-self/stat's user + system ticks (1/100 s); elsewhere the
 * wall clock, which is never shorter than the CPU time (a budget can only end early, never late).
 * One reading costs ~15 µs.
 */
import { readFileSync } from "node:fs";

export type CpuClock = () => number;

const fromSchedstat: CpuClock = () => Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ", 1)[0]) / 1e6;

const fromStat: CpuClock = () => {
  const stat = readFileSync("/proc/thread-self/stat", "latin1");
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const wall: CpuClock = () => performance.now();

/** The best clock this thread has: tried once, at the worker's start. */
export function threadCpuClock(): CpuClock {
  for (const clock of [fromSchedstat, fromStat]) {
    try {
      const first = clock();
      const spinUntil = performance.now() + 25;
      while (performance.now() < spinUntil);
      if (Number.isFinite(first) && clock() > first) return clock;
    } catch {
      // Not Linux, or /proc is not mounted: try the next.
    }
  }
  return wall;
}
