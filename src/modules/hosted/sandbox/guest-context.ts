/**
 * One bot's QuickJS context (its own runtime: heap limit, stack limit and interrupt handler are
 * per runtime in QuickJS). Lives inside a sandbox worker; the worker only routes messages to it.
 * Every way out of the guest is here: two host functions (log, now) and the JSON that
 * collect() returns. Whatever the guest does, the worker reads only bounded strings and numbers.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import { EVALUATOR_TABLES } from "@poker-bots/core/evaluator-tables";
import { MatchLogBudget, type SandboxLimits } from "./limits.ts";
import type { CpuClock } from "./cpu-clock.ts";
import { refusalMessage, type Charged, type MemoryBudget } from "./memory.ts";
import type { FailureKind, GuestAnswer, GuestLogLine } from "./messages.ts";

/**
 * Runs before the bot's script, in the guest: console writes to the host's bounded log; the
 * clock is frozen at the time the host gives each call (no timing side channel, and the same
 * answers on a replay); shared memory goes. QuickJS has no fetch, timers, process, require,
 * WebAssembly or module loader to begin with.
 */
/** A call past this (wall clock) is no decision at play speed: a bot thinking hard, or looping. */
const LONG_CALL_MS = 50;
/**
 * A long call runs on idle cores only (the worker lowers its thread, worker.ts); one that has not
 * had its budget of CPU time after this many budgets of wall time is raised back to the normal
 * priority, so on a machine busy for good it still reaches its budget (and is interrupted by it, its
 * log intact) long before the watchdog's wall-clock last resort (pool.ts).
 */
const STARVED_AFTER_BUDGETS = 2;

/** The evaluator's tables in the order HAND_IN_TABLES takes them (each an exact copy of its bytes). */
const TABLE_BUFFERS = [
  EVALUATOR_TABLES.classCodes,
  EVALUATOR_TABLES.categoryFirstValue,
  EVALUATOR_TABLES.cardKeys,
  EVALUATOR_TABLES.cardRankBits,
  EVALUATOR_TABLES.flushValues,
  EVALUATOR_TABLES.nonFlushValues,
].map((table) => table.slice().buffer);

const HAND_IN_TABLES = `(function (classCodes, categoryFirstValue, cardKeys, cardRankBits, flushValues, nonFlushValues) {
  globalThis.__pokerEvaluatorTables = {
    classCodes: new Float64Array(classCodes),
    categoryFirstValue: new Int32Array(categoryFirstValue),
    cardKeys: new Float64Array(cardKeys),
    cardRankBits: new Int32Array(cardRankBits),
    flushValues: new Uint16Array(flushValues),
    nonFlushValues: new Uint16Array(nonFlushValues),
  };
})`;

const PRELUDE = `(function (hostLog, hostNow, lineChars) {
  "use strict";
  const stringify = JSON.stringify;
  const show = (value) => {
    if (typeof value === "string") return value;
    try { const text = stringify(value); return text === undefined ? String(value) : text; } catch (e) {}
    try { return String(value); } catch (e) { return "[unprintable]"; }
  };
  const writer = (level) => function () {
    let text = "";
    for (let i = 0; i < arguments.length && text.length < lineChars; i++) text += (i ? " " : "") + show(arguments[i]);
    hostLog(level, text.length > lineChars ? text.slice(0, lineChars) : text);
  };
  globalThis.console = { log: writer("info"), info: writer("info"), debug: writer("debug"), trace: writer("debug"), warn: writer("warn"), error: writer("error") };
  delete globalThis.SharedArrayBuffer;
  delete globalThis.Atomics;
  const RealDate = Date;
  function HostedDate() {
    if (!new.target) return new RealDate(hostNow()).toString();
    return arguments.length === 0 ? new RealDate(hostNow()) : new RealDate(...arguments);
  }
  HostedDate.prototype = RealDate.prototype;
  HostedDate.now = () => hostNow();
  const origin = hostNow();
  globalThis.performance = { now: () => hostNow() - origin }; // the SDK times decide() with it
  HostedDate.parse = RealDate.parse;
  HostedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, "constructor", { value: HostedDate, writable: true, configurable: true });
  globalThis.Date = HostedDate;
})`;

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** What a context tells its worker, and asks of it, while it runs. */
export interface GuestHooks {
  /** Once per call that runs past LONG_CALL_MS (the worker lowers its thread's priority). */
  onLongCall(): void;
  /** Once per long call still short of its budget after STARVED_AFTER_BUDGETS budgets of wall time (the worker raises it back). */
  onStarved(): void;
  /** The pool's preempt word: when it holds the running call's id, the call stops (kind `preempted`). */
  preemptFlag(): Int32Array | null;
  /** A log line the bot wrote and its budget kept: the worker posts it to the host at once. */
  emit(line: GuestLogLine): void;
  /** The memory budget, for the words of a refusal. */
  budget(): MemoryBudget | null;
}

export class GuestFailure extends Error {
  constructor(readonly kind: FailureKind, message: string) {
    super(message);
  }
}

export class GuestContext {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private handleFn: QuickJSHandle | null = null;
  private collectFn: QuickJSHandle | null = null;
  /** Before this wall-clock instant the budget cannot be spent (CPU time never outruns the wall clock). */
  private checkAt = 0;
  /** The thread's CPU time when the current call began. */
  private cpuAtStart = 0;
  /** When the current call counts as long (onLongCall), on the wall clock; Infinity once told. */
  private longAt = 0;
  /** When a long call that has not had its budget is raised back (onStarved); Infinity once told. */
  private starvedAt = 0;
  private budgetMs = 0;
  private interrupted = false;
  /** The current call was stopped by the pool (another match waited behind it), not by its budget. */
  private preempted = false;
  /** The pool's id of the call running now (0: a load, which is never preempted). */
  private callId = 0;
  private nowMs = Date.now();
  private readonly logBudget: MatchLogBudget;

  constructor(
    module: QuickJSWASMModule,
    private readonly limits: SandboxLimits,
    private readonly cpu: CpuClock,
    private readonly hooks: GuestHooks,
    /** What this context has grown its worker's memory by (memory.ts charges it, from its runtime's creation on), and why a growth was refused. */
    readonly charged: Charged = { grownBytes: 0, refused: null },
    /** What Date.now() says while the bot's file loads (its top-level code): the caller's clock, never the host's by default. */
    loadNowMs: number = Date.now(),
  ) {
    this.nowMs = loadNowMs;
    this.logBudget = new MatchLogBudget(limits);
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    // Called by QuickJS every few thousand operations; returning true throws an uncatchable
    // "interrupted" error in the guest, so try/catch cannot swallow a timeout. The budget is CPU
    // time (sandbox time): the cheap wall clock says when it may be spent, the thread's CPU clock
    // whether it is; a thread that waited for a core gets the rest of its budget.
    this.runtime.setInterruptHandler(() => {
      const flag = this.hooks.preemptFlag();
      if (flag !== null && this.callId !== 0 && Atomics.load(flag, 0) === this.callId) {
        this.preempted = true;
        return true;
      }
      const now = performance.now();
      if (now > this.longAt) {
        this.longAt = Infinity;
        this.hooks.onLongCall();
      }
      if (now > this.starvedAt) {
        this.starvedAt = Infinity;
        this.hooks.onStarved();
      }
      if (now <= this.checkAt) return false;
      const left = this.budgetMs - this.cpuUsedMs();
      if (left > 0) {
        this.checkAt = performance.now() + left;
        return false;
      }
      this.interrupted = true;
      return true;
    });
    this.context = this.runtime.newContext();
  }

  /** Runs the prelude and the bot's script, then takes the guest's two entry points. `cpuAt`: the thread's CPU clock as the load began. */
  load(code: string, cpuAt = this.cpu()): void {
    const ctx = this.context;
    this.arm(this.limits.loadMs, cpuAt);
    const prelude = this.unwrap(ctx.evalCode(PRELUDE, "prelude.js"));
    const log = ctx.newFunction("log", (level, text) => void this.log(level, text));
    const now = ctx.newFunction("now", () => ctx.newNumber(this.nowMs));
    const chars = ctx.newNumber(this.limits.logLineChars);
    this.unwrap(ctx.callFunction(prelude, ctx.undefined, log, now, chars)).dispose();
    for (const h of [prelude, log, now, chars]) h.dispose();
    this.handInEvaluatorTables();
    this.unwrap(ctx.evalCode(code, "bot.js")).dispose();
    this.drainJobs();
    const guest = ctx.getProp(ctx.global, "__hostedGuest");
    this.unwrap(ctx.evalCode("delete globalThis.__hostedGuest")).dispose();
    const handle = ctx.getProp(guest, "handle");
    const collect = ctx.getProp(guest, "collect");
    guest.dispose();
    if (ctx.typeof(handle) !== "function" || ctx.typeof(collect) !== "function") {
      handle.dispose();
      collect.dispose();
      throw new GuestFailure("exception", "the script did not install the hosted runtime (was it bundled at upload?)");
    }
    this.handleFn = handle;
    this.collectFn = collect;
  }

  /** One server message through the bot's session: an action_request runs decide(), others run hooks. */
  call(message: string, budgetMs: number, nowMs: number, callId = 0, cpuAt = this.cpu()): GuestAnswer {
    if (!this.handleFn || !this.collectFn) throw new GuestFailure("crashed", "the context is not loaded");
    const ctx = this.context;
    this.nowMs = nowMs;
    this.arm(budgetMs, cpuAt);
    this.callId = callId;
    const arg = ctx.newString(message);
    const handled = ctx.callFunction(this.handleFn, ctx.undefined, arg);
    arg.dispose();
    this.unwrap(handled).dispose();
    this.drainJobs();
    const collected = this.unwrap(ctx.callFunction(this.collectFn, ctx.undefined));
    const text = this.boundedString(collected, this.limits.answerBytes + 2_000);
    collected.dispose();
    let outcome: { settled?: boolean; decided?: boolean; answer?: unknown; threw?: string | null };
    try {
      outcome = JSON.parse(text ?? "");
    } catch {
      throw new GuestFailure("illegal", "the answer is larger than the limit or not JSON");
    }
    if (this.interrupted || this.preempted || outcome.threw) throw this.classify(String(outcome.threw).slice(0, 500));
    if (!outcome.settled) throw new GuestFailure("timeout", "decide() returned a promise that never settled");
    return { decided: outcome.decided === true, answer: outcome.answer ?? null };
  }

  heapBytes(): number {
    const usage = this.runtime.computeMemoryUsage();
    try {
      return Number((this.context.dump(usage) as { memory_used_size?: number }).memory_used_size ?? 0);
    } finally {
      usage.dispose();
    }
  }

  dispose(): void {
    this.handleFn?.dispose();
    this.collectFn?.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }

  /**
   * A copy of the evaluator's tables, built once per worker, for the SDK inside to take at load
   * (evaluator-tables.ts `PrebuiltEvaluatorTables`): building them in QuickJS costs ~1 s a context.
   */
  private handInEvaluatorTables(): void {
    const ctx = this.context;
    const handIn = this.unwrap(ctx.evalCode(HAND_IN_TABLES, "tables.js"));
    const buffers = TABLE_BUFFERS.map((buffer) => ctx.newArrayBuffer(buffer));
    try {
      this.unwrap(ctx.callFunction(handIn, ctx.undefined, ...buffers)).dispose();
    } finally {
      for (const h of [handIn, ...buffers]) h.dispose();
    }
  }

  private arm(budgetMs: number, cpuAt: number): void {
    this.interrupted = false;
    this.preempted = false;
    this.charged.refused = null;
    this.callId = 0;
    this.budgetMs = budgetMs;
    this.cpuAtStart = cpuAt;
    const now = performance.now();
    this.checkAt = now + budgetMs;
    this.longAt = now + LONG_CALL_MS;
    this.starvedAt = now + STARVED_AFTER_BUDGETS * budgetMs;
  }

  /** CPU time the current call has used so far, in ms. */
  cpuUsedMs(): number {
    return this.cpu() - this.cpuAtStart;
  }

  /** Promise jobs run synchronously here (there are no timers), under the same deadline. */
  private drainJobs(): void {
    const jobs = this.runtime.executePendingJobs();
    if (jobs.error) throw this.failure(jobs.error);
  }

  private unwrap(result: { error?: QuickJSHandle; value?: QuickJSHandle }): QuickJSHandle {
    if (result.error) throw this.failure(result.error);
    return result.value!;
  }

  /** Turns a guest error into a failure kind; the interrupt flag, not the message, decides a timeout. */
  private failure(error: QuickJSHandle): GuestFailure {
    let text = "unknown error";
    try {
      const ctx = this.context;
      if (ctx.typeof(error) === "object") {
        const name = ctx.getProp(error, "name");
        const message = ctx.getProp(error, "message");
        text = `${this.boundedString(name, 100) ?? "Error"}: ${this.boundedString(message, 500) ?? ""}`;
        name.dispose();
        message.dispose();
      } else {
        text = this.boundedString(error, 500) ?? `a ${ctx.typeof(error)} was thrown`;
      }
    } catch {
      // Reading the error failed too (out of memory): the kind below still says what happened.
    } finally {
      error.dispose();
    }
    return this.classify(text);
  }

  /**
   * The kind of a failure. The interrupt flag, set by our handler, decides a timeout whatever the
   * guest reports (an interrupt inside an async decide() reaches the guest as a rejection).
   * Memory and stack are QuickJS's own errors; a bot could throw look-alikes, which only changes
   * the label on its own failure.
   */
  private classify(text: string): GuestFailure {
    if (this.preempted) return new GuestFailure("preempted", "stopped to let another match's bot use the worker");
    if (this.interrupted) return new GuestFailure("timeout", `ran past its ${Math.round(this.budgetMs)} ms CPU budget`);
    const budget = this.hooks.budget();
    // The sandbox refused its worker more memory (memory.ts): that says which limit it met.
    if (this.charged.refused && budget) return new GuestFailure("memory", `${refusalMessage(this.charged.refused, budget)}: ${text}`);
    if (/out of memory/.test(text)) return new GuestFailure("memory", `exceeded the ${this.limits.memoryBytes >> 20} MiB heap: ${text}`);
    if (/stack overflow/.test(text)) return new GuestFailure("stack", `exceeded the ${this.limits.stackBytes >> 10} KiB stack: ${text}`);
    return new GuestFailure("exception", text);
  }

  /** A guest string, but never a huge copy: longer than `max` → cut (or a note of its size). */
  private boundedString(handle: QuickJSHandle, max: number): string | null {
    const ctx = this.context;
    if (ctx.typeof(handle) !== "string") return null;
    const lengthHandle = ctx.getProp(handle, "length");
    const length = ctx.getNumber(lengthHandle);
    lengthHandle.dispose();
    if (length > max * 4) return `[a string of ${length} characters]`;
    return ctx.getString(handle).slice(0, max);
  }

  private log(levelHandle: QuickJSHandle, textHandle: QuickJSHandle): void {
    if (this.logBudget.spent) return;
    const level = this.boundedString(levelHandle, 10) ?? "info";
    const text = this.boundedString(textHandle, this.limits.logLineChars) ?? "";
    // This context's own count keeps its memory bounded; the seat's budget (HostedSeat) decides
    // what the match keeps across copies and reopened contexts.
    const verdict = this.logBudget.admit(text);
    if (verdict === "limit") this.hooks.emit({ level: "warn", text: this.logBudget.limitLine() });
    if (verdict !== "kept") return;
    this.hooks.emit({ level: LEVELS.has(level) ? (level as GuestLogLine["level"]) : "info", text });
  }
}
