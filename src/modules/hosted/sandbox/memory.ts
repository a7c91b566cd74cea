/**
 * The sandbox's memory, counted where it is really spent: the WebAssembly memory of each worker.
 * QuickJS's own heap limit does not hold in this build (its emscripten allocator reports every
 * block as 0 bytes, so `setMemoryLimit` refuses only a single allocation larger than the limit: a
 * bot could hold 300 MiB in many 1 MiB arrays), and QuickJS's own count of a context's heap misses
 * strings held by a Map, a Set, a Promise or a global variable. What cannot be missed is the
 * worker's WebAssembly memory growing: Emscripten grows it through `memory.grow`, called from
 * JavaScript, and refuses the allocation (QuickJS throws "out of memory" in the guest) when that
 * throws. So every growth is checked and charged here, to the context whose code is running:
 *
 *   - a context may not grow its worker by more than `contextBytes` in all (the per-bot limit:
 *     twice its 64 MiB heap, as an array or a string that grows is copied);
 *   - the first `lightBytes` a context grows come from the whole budget; past that ("heavy"
 *     growth) they come from `heavyBytes` only, so bots that hold a lot can never take the memory
 *     the light ones (a starter bot holds ~0.6 MiB) need;
 *   - every worker's memory together (what their growth made of it, and the 16 MiB each starts
 *     with) stays within `totalBytes` (SANDBOX_MEMORY_MIB): the sandbox's bound.
 *
 * The counters are shared by every worker (Atomics on one SharedArrayBuffer), so the bound holds
 * across threads with no lock. WebAssembly memory never shrinks: a worker's pages come back to the
 * budget when its thread has ended (the pool recycles workers that grew; see pool.ts).
 */
import { invariant } from "../../../lib/assert.ts";

const PAGE = 64 * 1024;

export interface MemoryBudget {
  /** All workers' WebAssembly memory together. */
  totalBytes: number;
  /** What contexts may grow past their first lightBytes, all together. */
  heavyBytes: number;
  /** What one context may grow from the whole budget before its growth counts as heavy. */
  lightBytes: number;
  /** What one context may grow its worker by in all (the per-bot heap limit, limits.memoryBytes). */
  contextBytes: number;
}

/** The 64 KiB pages in use, in one shared Int32Array: all workers', and the heavy part of them. */
const TOTAL = 0;
const HEAVY = 1;

/** Why a growth was refused (it becomes the guest's "out of memory"; the failure's message says which). */
export type MemoryRefusal = "context" | "heavy" | "total";

/** The main thread's side: the shared counters, handed to each worker at its start, and what a worker ended gives back. */
export class MemoryLedger {
  readonly shared = new SharedArrayBuffer(8);
  private readonly pages = new Int32Array(this.shared);

  constructor(readonly budget: MemoryBudget) {
    invariant(budget.lightBytes <= budget.contextBytes && budget.heavyBytes <= budget.totalBytes, "memory budget: light ≤ per context, heavy ≤ total");
  }

  /** A worker's own counters (its pages and the heavy part), which it adds to as the shared ones. */
  static workerCells(): SharedArrayBuffer {
    return new SharedArrayBuffer(8);
  }

  /** The thread of a worker has ended: its memory is gone, and its pages return to the budget. */
  release(cells: SharedArrayBuffer): void {
    const own = new Int32Array(cells);
    const total = Atomics.exchange(own, TOTAL, 0);
    const heavy = Atomics.exchange(own, HEAVY, 0);
    const left = Atomics.sub(this.pages, TOTAL, total) - total;
    const heavyLeft = Atomics.sub(this.pages, HEAVY, heavy) - heavy;
    invariant(left >= 0 && heavyLeft >= 0, `memory ledger: released more pages than were counted (${left}, ${heavyLeft})`);
  }

  /** Bytes of WebAssembly memory all workers hold now (and the heavy part). */
  inUse(): { totalBytes: number; heavyBytes: number } {
    return { totalBytes: Atomics.load(this.pages, TOTAL) * PAGE, heavyBytes: Atomics.load(this.pages, HEAVY) * PAGE };
  }
}

/** What the guard charges a growth to: the context whose code runs (null: the worker's own work). */
export interface Charged {
  grownBytes: number;
  refused: MemoryRefusal | null;
}

/**
 * The worker's side: wraps its WebAssembly.Memory's `grow` so every growth is checked against the
 * budget and charged. Until `attach` (the pool's first message) growth is the module's own start-up
 * and is counted at attach.
 */
export class GrowthGuard {
  private pages: Int32Array | null = null;
  private own: Int32Array | null = null;
  private budget: MemoryBudget | null = null;
  /** The heap size Emscripten's resize asked for, while it runs (wrapResize). */
  private requested: number | null = null;
  /** The context whose code runs now. */
  current: Charged | null = null;

  constructor(
    readonly memory: WebAssembly.Memory,
    /** Growth is what an allocation needs, rounded up to this (see wrapResize). */
    private readonly stepBytes: number,
  ) {
    const grow = memory.grow.bind(memory);
    // Emscripten's heap resize calls this and catches a throw (then malloc returns null).
    (memory as { grow: (pages: number) => number }).grow = (delta: number) => {
      const pages = this.trimmed(delta);
      this.take(pages);
      return grow(pages);
    };
  }

  /**
   * Emscripten's heap resize (an import of the module: the one function that calls `.grow(`) asks
   * for a fifth more than the heap needs, then less on refusal. Wrapped, it tells the guard the size
   * it needs, and growth is that (rounded up to the step), so a bot is charged for what it
   * allocated, not for the worker's size. Without it (a build whose import differs) growth is
   * charged as asked: the bound still holds, the charge is only coarser.
   */
  wrapResize(imports: Record<string, Record<string, unknown>>): boolean {
    const found: Array<[Record<string, unknown>, string]> = [];
    for (const module of Object.values(imports)) {
      for (const [name, value] of Object.entries(module)) {
        if (typeof value === "function" && /\.grow\(/.test(String(value))) found.push([module, name]);
      }
    }
    if (found.length !== 1) return false;
    const [module, name] = found[0];
    const resize = module[name] as (bytes: number) => unknown;
    module[name] = (bytes: number) => {
      this.requested = bytes >>> 0;
      try {
        return resize(bytes);
      } finally {
        this.requested = null;
      }
    };
    return true;
  }

  /** The pages to grow by: what the resize asked for at most, what it needs (rounded up to the step) at least. */
  private trimmed(delta: number): number {
    if (this.requested === null) return delta;
    const current = this.memory.buffer.byteLength;
    const needed = Math.ceil(Math.max(this.requested, current + this.stepBytes) / PAGE) - current / PAGE;
    return Math.max(1, Math.min(delta, needed));
  }

  attach(ledger: SharedArrayBuffer, cells: SharedArrayBuffer, budget: MemoryBudget): void {
    this.pages = new Int32Array(ledger);
    this.own = new Int32Array(cells);
    this.budget = budget;
    const start = this.memory.buffer.byteLength / PAGE;
    Atomics.add(this.own, TOTAL, start);
    Atomics.add(this.pages, TOTAL, start);
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Checks and counts `delta` pages, or throws (the allocation fails: the guest's "out of memory"). */
  private take(delta: number): void {
    const pages = this.pages;
    const own = this.own;
    const budget = this.budget;
    if (!pages || !own || !budget) return;
    const bytes = delta * PAGE;
    const context = this.current;
    if (context && context.grownBytes + bytes > budget.contextBytes) return this.refuse(context, "context");
    const heavy = context ? Math.ceil((Math.max(context.grownBytes + bytes, budget.lightBytes) - Math.max(context.grownBytes, budget.lightBytes)) / PAGE) : 0;
    if (heavy > 0 && Atomics.add(pages, HEAVY, heavy) + heavy > budget.heavyBytes / PAGE) {
      Atomics.sub(pages, HEAVY, heavy);
      return this.refuse(context, "heavy");
    }
    if (Atomics.add(pages, TOTAL, delta) + delta > budget.totalBytes / PAGE) {
      Atomics.sub(pages, TOTAL, delta);
      if (heavy > 0) Atomics.sub(pages, HEAVY, heavy);
      return this.refuse(context, "total");
    }
    // The worker's own cells after the shared ones: the pool reads them only once this thread has ended.
    Atomics.add(own, TOTAL, delta);
    if (heavy > 0) Atomics.add(own, HEAVY, heavy);
    if (context) context.grownBytes += bytes;
    invariant(!context || context.grownBytes <= budget.contextBytes, "a context grew its worker past its limit");
  }

  private refuse(context: Charged | null, why: MemoryRefusal): never {
    if (context) context.refused ??= why;
    throw new RangeError(`sandbox memory: ${why}`);
  }
}

/** The words a refusal puts in a `memory` failure. */
export function refusalMessage(why: MemoryRefusal, budget: Pick<MemoryBudget, "contextBytes" | "lightBytes" | "heavyBytes" | "totalBytes">): string {
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  if (why === "context") return `used more than the ${mib(budget.contextBytes)} of memory a bot may hold`;
  if (why === "heavy") return `needed more than ${mib(budget.lightBytes)} while the ${mib(budget.heavyBytes)} the sandbox gives bots above that were in use by others`;
  return `the sandbox's memory (${mib(budget.totalBytes)}) was in use`;
}
