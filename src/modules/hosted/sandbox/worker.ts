/**
 * A sandbox worker thread: one QuickJS WebAssembly module, many bot contexts, one message at a
 * time. Untrusted code runs here only, never on the server's event loop. If the module itself
 * breaks (a WebAssembly trap), the reply says `fatal` and the pool replaces the whole worker.
 *
 * Its WebAssembly memory is made here, so every growth goes through the sandbox's memory budget
 * (memory.ts); a bot's log lines are posted as they are written (a call the watchdog ends keeps
 * them); the call running now and the CPU clock when it began are in words the pool shares, for its
 * watchdog (pool.ts).
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import { invariant } from "../../../lib/assert.ts";
import { setThreadIdle, setThreadNice } from "../../../lib/thread-priority.ts";
import { currentThreadId, pickThreadCpuClock } from "./cpu-clock.ts";
import { GuestContext, GuestFailure, type GuestHooks } from "./guest-context.ts";
import { GrowthGuard, type MemoryBudget } from "./memory.ts";
import { CONTROL_CPU_AT, CONTROL_PREEMPT, CONTROL_RUNNING, type FromWorker, type ToWorker, type WorkerReply } from "./messages.ts";

declare const self: Worker;

/** Emscripten's start (16 MiB) and its ceiling (2 GiB); what the budget allows is memory.ts's to say. */
const INITIAL_PAGES = 256;
const MAXIMUM_PAGES = 32_768;
/**
 * Emscripten grows its heap by a fifth of its size at a time: charged to the bot whose allocation
 * asked, a bot holding 100 KiB could be charged 20 MiB in a big worker. Growth here is what the
 * allocation needs, rounded up to this step.
 */
const GROWTH_STEP_BYTES = 1024 * 1024;

const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES });
const guard = new GrowthGuard(memory, GROWTH_STEP_BYTES);
const wasmPath = Bun.fileURLToPath(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
const compiled = await WebAssembly.compile(await Bun.file(wasmPath).arrayBuffer());
const module = await newQuickJSWASMModuleFromVariant(
  newVariant(variant, {
    wasmMemory: memory,
    emscriptenModule: {
      // Emscripten's own hook for instantiating: the guard wraps the heap-resize import on the way.
      instantiateWasm(imports: Record<string, Record<string, unknown>>, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
        guard.wrapResize(imports);
        void WebAssembly.instantiate(compiled, imports as never).then((instance) => receive(instance, compiled));
        return {};
      },
    } as never,
  }),
);
const { clock: cpu, kind: clockKind } = pickThreadCpuClock();

// A guest's long call (a bot thinking for seconds, or looping to its budget) runs only on an idle
// core (SCHED_IDLE; nice 19 where that cannot be set), so the event loop and the other workers'
// bots keep their cores; its budget is CPU time, so it loses nothing by waiting. At nice 19 a
// looping bot still cost the 39 tables beside it ~7 % of their hands (bench:hosted, docs/HOSTED.md);
// SCHED_IDLE ~3.5 %. A call starved there for twice its budget is raised back (GuestHooks.onStarved).
// Raising back from nice 19 needs CAP_SYS_NICE: without it the worker stays lowered (its own matches only).
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
/** The words shared with the pool (messages.ts CONTROL_*); null until the pool's setup message. */
let control: { words: Int32Array; cpuAt: Float64Array } | null = null;
let budget: MemoryBudget | null = null;
/** The pool's id of the message being handled (log lines posted meanwhile carry it). */
let runningId = 0;

const hooks: GuestHooks = {
  onLongCall: lowerPriority,
  onStarved: restorePriority,
  preemptFlag: () => control?.words ?? null,
  emit: (line) => self.postMessage({ log: line, id: runningId } satisfies FromWorker),
  budget: () => budget,
};

/** Below this, a call's wall time is reported as is (an upper bound of its CPU time, and free to read). */
const WALL_IS_CLOSE_ENOUGH_MS = 5;

function handle(message: Exclude<ToWorker, { op: "setup" }>): WorkerReply {
  const started = performance.now();
  const cpuAt = message.op === "open" || message.op === "call" ? cpu() : 0;
  runningId = message.id;
  if (control) {
    control.cpuAt[0] = cpuAt;
    Atomics.store(control.words, CONTROL_RUNNING, message.id);
  }
  let context: GuestContext | undefined;
  // Sandbox time: the CPU time the guest used (what its budget counts), not the time it waited for a core.
  const ms = () => {
    const wall = performance.now() - started;
    return wall < WALL_IS_CLOSE_ENOUGH_MS || !context ? wall : Math.min(wall, context.cpuUsedMs());
  };
  try {
    switch (message.op) {
      case "open": {
        const charged = { grownBytes: 0, refused: null };
        guard.current = charged;
        context = new GuestContext(module, message.limits, cpu, hooks, charged, message.nowMs);
        contexts.set(message.contextId, context);
        context.load(message.code, cpuAt);
        return { id: message.id, ok: true, ms: ms(), memoryBytes: guard.bytes };
      }
      case "call": {
        context = contexts.get(message.contextId);
        if (!context) return { id: message.id, ok: false, ms: 0, memoryBytes: guard.bytes, kind: "crashed", message: "no such context (lost with a replaced worker)" };
        guard.current = context.charged;
        const result = context.call(message.message, message.budgetMs, message.nowMs, message.id, cpuAt);
        return { id: message.id, ok: true, ms: ms(), memoryBytes: guard.bytes, result };
      }
      case "close":
        contexts.get(message.contextId)?.dispose();
        contexts.delete(message.contextId);
        return { id: message.id, ok: true, ms: 0, memoryBytes: guard.bytes };
      case "stats": {
        let heapBytes = 0;
        for (const c of contexts.values()) heapBytes += c.heapBytes();
        return { id: message.id, ok: true, ms: 0, memoryBytes: guard.bytes, stats: { contexts: contexts.size, heapBytes } };
      }
    }
  } catch (error) {
    if (error instanceof GuestFailure) {
      if (message.op === "open") closeQuietly(message.contextId);
      return { id: message.id, ok: false, ms: ms(), memoryBytes: guard.bytes, kind: error.kind, message: error.message };
    }
    // Not the guest's error but ours or the module's: nothing in this worker can be trusted now.
    return { id: message.id, ok: false, ms: ms(), memoryBytes: guard.bytes, kind: "crashed", message: String(error).slice(0, 300), fatal: true };
  } finally {
    guard.current = null;
    runningId = 0;
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
  const data = event.data;
  if (data.op === "setup") {
    invariant(control === null, "a sandbox worker is set up once");
    control = { words: new Int32Array(data.control, 0, 2), cpuAt: new Float64Array(data.control, 8, 1) };
    invariant(CONTROL_PREEMPT === 0 && CONTROL_RUNNING === 1 && CONTROL_CPU_AT === 8, "the control words' layout");
    budget = data.budget;
    guard.attach(data.ledger, data.cells, data.budget);
    if (data.nice !== null) setThreadNice(data.nice);
    return;
  }
  const reply = handle(data);
  restorePriority();
  self.postMessage(reply satisfies FromWorker);
};
self.postMessage({ ready: true, tid: currentThreadId(), clock: clockKind } satisfies FromWorker);
