/**
 * A sandbox worker thread: one QuickJS WebAssembly module, many bot contexts, one message at a
 * time. Untrusted code runs here only, never on the server's event loop. If the module itself
 * breaks (a WebAssembly trap), the reply says `fatal` and the pool replaces the whole worker.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { setThreadIdle, setThreadNice } from "../../../lib/thread-priority.ts";
import { threadCpuClock } from "./cpu-clock.ts";
import { GuestContext, GuestFailure } from "./guest-context.ts";
import type { FromWorker, ToWorker } from "./messages.ts";

declare const self: Worker;

const module = await newQuickJSWASMModuleFromVariant(variant);
const cpu = threadCpuClock();

// A guest's long call (a bot thinking for seconds, or looping to its budget) runs only on an idle
// core (SCHED_IDLE; nice 19 where that cannot be set), so the event loop and the other workers'
// bots keep their cores; its budget is CPU time, so it loses nothing by waiting. At nice 19 a
// looping bot still cost the 39 tables beside it ~7 % of their hands (bench:hosted, docs/HOSTED.md);
// SCHED_IDLE ~3.5 %. Raising back needs CAP_SYS_NICE: without it the worker stays lowered (its own
// matches only).
/** The nice value of a worker thread while a guest's call runs long, where SCHED_IDLE is not to be had. */
const LONG_CALL_NICE = 19;
let lowered: "idle" | "nice" | null = null;
function lowerPriority(): void {
  if (lowered) return;
  if (setThreadIdle(true)) lowered = "idle";
  else if (setThreadNice(LONG_CALL_NICE)) lowered = "nice";
}
function restorePriority(): void {
  if (lowered === "idle" && setThreadIdle(false)) lowered = null;
  else if (lowered === "nice" && setThreadNice(0)) lowered = null;
}

const contexts = new Map<number, GuestContext>();
/** Holds the id of a call the pool wants stopped (another match waits behind it); see guest-context.ts. */
let preemptFlag: Int32Array | null = null;

/** Below this, a call's wall time is reported as is (an upper bound of its CPU time, and free to read). */
const WALL_IS_CLOSE_ENOUGH_MS = 5;

function handle(message: Exclude<ToWorker, { op: "preempt-flag" }>): FromWorker {
  const started = performance.now();
  let context: GuestContext | undefined;
  // Sandbox time: the CPU time the guest used (what its budget counts), not the time it waited for a core.
  const ms = () => {
    const wall = performance.now() - started;
    return wall < WALL_IS_CLOSE_ENOUGH_MS || !context ? wall : Math.min(wall, context.cpuUsedMs());
  };
  try {
    switch (message.op) {
      case "open": {
        context = new GuestContext(module, message.limits, cpu, lowerPriority, () => preemptFlag);
        contexts.set(message.contextId, context);
        context.load(message.code);
        return { id: message.id, ok: true, ms: ms(), logs: context.takeLogs() };
      }
      case "call": {
        context = contexts.get(message.contextId);
        if (!context) return { id: message.id, ok: false, ms: 0, logs: [], kind: "crashed", message: "no such context (lost with a replaced worker)" };
        const result = context.call(message.message, message.budgetMs, message.nowMs, message.id);
        return { id: message.id, ok: true, ms: ms(), logs: context.takeLogs(), result };
      }
      case "close":
        contexts.get(message.contextId)?.dispose();
        contexts.delete(message.contextId);
        return { id: message.id, ok: true, ms: 0, logs: [] };
      case "stats": {
        let heapBytes = 0;
        for (const c of contexts.values()) heapBytes += c.heapBytes();
        return { id: message.id, ok: true, ms: 0, logs: [], stats: { contexts: contexts.size, heapBytes } };
      }
    }
  } catch (error) {
    const logs = context?.takeLogs() ?? [];
    if (error instanceof GuestFailure) {
      if (message.op === "open") closeQuietly(message.contextId);
      return { id: message.id, ok: false, ms: ms(), logs, kind: error.kind, message: error.message };
    }
    // Not the guest's error but ours or the module's: nothing in this worker can be trusted now.
    return { id: message.id, ok: false, ms: ms(), logs, kind: "crashed", message: String(error).slice(0, 300), fatal: true };
  }
}

function closeQuietly(contextId: number): void {
  try {
    contexts.get(contextId)?.dispose();
  } catch {
    // A context that failed to load may not dispose cleanly; it goes either way.
  }
  contexts.delete(contextId);
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  if (event.data.op === "preempt-flag") {
    preemptFlag = new Int32Array(event.data.flag);
    return;
  }
  const reply = handle(event.data);
  restorePriority();
  self.postMessage(reply);
};
self.postMessage({ ready: true });
