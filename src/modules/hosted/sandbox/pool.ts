/**
 * The worker threads hosted bots run in, seen from the server's event loop: it only posts
 * messages and waits for replies, so a bot that loops costs this thread nothing. A worker that
 * stops answering (a guest stuck where the interrupt handler cannot reach it) or reports that
 * its WebAssembly module broke is terminated and replaced; its contexts are lost, and every
 * call waiting on it fails with WorkerLost (`culprit` for the call that was running).
 */
import { invariant } from "../../../lib/assert.ts";
import { cpuClockOfThread, type CpuClock } from "./cpu-clock.ts";
import { MemoryLedger } from "./memory.ts";
import { CONTROL_BYTES, CONTROL_PREEMPT, type FromWorker, type ToWorker, type WorkerReply } from "./messages.ts";
import { DRAIN_ABOVE_BYTES, holdsUpAnotherMatch, PREEMPT_AFTER_MS, RECYCLE_ABOVE_BYTES, stuckReason, type GuestCall, type Pending, type Slot } from "./watchdog.ts";

export type { CallOwner, GuestCall } from "./watchdog.ts";

export class WorkerLost extends Error {
  constructor(
    readonly culprit: boolean,
    reason = "stopped answering",
  ) {
    super(culprit ? `the sandbox worker ${reason} during this call and was replaced` : "the sandbox worker was replaced while this call waited");
  }
}

/** A message to a worker, without the id the pool assigns. */
export type Request = Exclude<ToWorker, { op: "setup" }> extends infer T ? (T extends { id: number } ? Omit<T, "id"> : never) : never;

const WORKER_URL = new URL("./worker.ts", import.meta.url);

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers replaced so far (a figure for stats, metrics and tests). */
  replacements = 0;
  /** Workers ended because their memory had grown and they held nothing (their memory returned). */
  recycled = 0;
  /** Guest calls stopped because they held up another match (their seats moved to a worker of their own). */
  preemptions = 0;
  private readonly monitor: ReturnType<typeof setInterval>;

  constructor(
    private readonly minSize: number,
    private readonly maxSize: number,
    private readonly graceMs: number,
    /** How long a worker beyond the minimum stays idle before its thread ends (starting one costs ~0.2 s). */
    private readonly idleMs: number,
    readonly ledger: MemoryLedger,
    /** The workers' thread priority for good (null: the normal one; the validation pool's run lower than the tables'). */
    private readonly nice: number | null = null,
  ) {
    invariant(minSize >= 0 && maxSize >= Math.max(1, minSize), `pool sizes: ${minSize} ≤ ${maxSize}`);
    for (let i = 0; i < minSize; i++) this.slots.push(this.spawn(0));
    this.monitor = setInterval(() => this.watch(), PREEMPT_AFTER_MS / 2);
    this.monitor.unref();
  }

  /** Every 25 ms: preemption and the watchdog, both looking only at the call at each worker's head. */
  private watch(): void {
    const now = performance.now();
    for (let index = 0; index < this.slots.length; index++) {
      const s = this.slots[index];
      if (s.dormant || s.pending.size === 0) continue;
      const [headId, head] = s.pending.entries().next().value as [number, Pending];
      if (!head.call || head.runningSince === undefined) continue;
      const ran = now - head.runningSince;
      if (holdsUpAnotherMatch(s, head, ran)) Atomics.store(s.words, CONTROL_PREEMPT, headId);
      const stuck = stuckReason(s, headId, head.call.budgetMs, ran, this.graceMs);
      if (stuck) this.replace(index, headId, stuck);
    }
  }

  get size(): number {
    return this.slots.length;
  }

  /** Indexes of the workers running now (not retired). */
  liveSlots(): number[] {
    return this.slots.flatMap((s, i) => (s.dormant ? [] : [i]));
  }

  /**
   * The worker for a new context. A group's contexts (one match's hosted seats) share a worker:
   * they act one at a time anyway, so they lose nothing by it, and a bot that spends its whole
   * budget (a loop) holds up only its own match. A new group takes a worker that holds no context,
   * else a new one (up to maxSize), else the least loaded (one whose memory grew past
   * DRAIN_ABOVE_BYTES only when every one has).
   */
  pick(group: string | null): number {
    if (group !== null) {
      const held = this.slots.findIndex((s) => !s.dormant && !s.exclusive && s.groups.has(group));
      if (held >= 0) return held;
    }
    const free = this.freeSlot(this.maxSize);
    if (free >= 0) return free;
    const shared = this.liveSlots().filter((i) => !this.slots[i].exclusive);
    const lean = shared.filter((i) => this.slots[i].memoryBytes <= DRAIN_ABOVE_BYTES);
    let best = -1;
    for (const i of lean.length > 0 ? lean : shared) if (best < 0 || this.slots[i].contexts < this.slots[best].contexts) best = i;
    return best < 0 ? this.liveSlots()[0] : best;
  }

  /**
   * A worker for one seat alone, marked exclusive: an empty or retired one, else a new one, past
   * maxSize if need be (up to twice it: a bot is moved here only after it held up another match,
   * or stopped answering, which is rare); only beyond that, the least loaded shared one.
   */
  pickAlone(): number {
    const free = this.freeSlot(2 * this.maxSize);
    if (free < 0) return this.pick(null);
    this.slots[free].exclusive = true;
    return free;
  }

  /** A worker holding nothing: a running empty one, else a retired one restarted, else a new one while there are fewer than `limit`; -1 if none. */
  private freeSlot(limit: number): number {
    const empty = this.slots.findIndex((s) => !s.dormant && !s.exclusive && s.contexts === 0 && s.pending.size === 0);
    if (empty >= 0) return empty;
    const dormant = this.slots.findIndex((s) => s.dormant);
    if (dormant >= 0) {
      const generation = this.slots[dormant].generation + 1;
      invariant(generation > 0, "worker generations only grow");
      this.slots[dormant] = this.spawn(generation);
      return dormant;
    }
    if (this.slots.length >= limit) return -1;
    this.slots.push(this.spawn(0));
    return this.slots.length - 1;
  }

  /** The seat that had this worker alone has left it. */
  share(slot: number, generation: number): void {
    const s = this.slots[slot];
    if (s.generation === generation) s.exclusive = false;
  }

  generation(slot: number): number {
    return this.slots[slot].generation;
  }

  /** Counts contexts per worker and group, for pick(). */
  adjustContexts(slot: number, generation: number, delta: number, group: string | null): void {
    const s = this.slots[slot];
    if (s.generation !== generation) return;
    s.contexts += delta;
    invariant(s.contexts >= 0, `worker ${slot}: ${s.contexts} contexts`);
    if (group === null) return;
    const count = (s.groups.get(group) ?? 0) + delta;
    invariant(count >= 0, `worker ${slot}: group ${group} has ${count} contexts`);
    if (count > 0) s.groups.set(group, count);
    else s.groups.delete(group);
  }

  /**
   * A worker that holds no context and has nothing in flight: recycled at once if its memory grew
   * past RECYCLE_ABOVE_BYTES (its thread ends and its memory returns to the machine and the budget;
   * one of the minimum is started afresh), else, beyond the minimum, retired after `idleMs` idle.
   */
  retireIfIdle(slot: number, generation: number): void {
    const idle = () => {
      const s = this.slots[slot];
      return s.generation === generation && !s.dormant && s.contexts === 0 && s.pending.size === 0;
    };
    if (!idle() || this.closed) return;
    if (this.slots[slot].memoryBytes > RECYCLE_ABOVE_BYTES) {
      this.recycled++;
      return this.end(slot, slot < this.minSize);
    }
    if (slot < this.minSize) return;
    if (this.idleMs <= 0) return this.end(slot, false);
    setTimeout(() => idle() && !this.closed && this.end(slot, false), this.idleMs).unref();
  }

  /** Ends a worker holding nothing: a fresh one takes its place (`restart`), or the slot waits for the next need. */
  private end(slot: number, restart: boolean): void {
    const s = this.slots[slot];
    if (restart) this.slots[slot] = this.spawn(s.generation + 1);
    else {
      s.dormant = true;
      s.generation++; // a context opened there (none is) would be gone
    }
    s.worker.terminate();
  }

  /** Sends one request; a guest call (`call`) is watched (see watch()) and its log lines are passed on as they come. */
  async request(slot: number, request: Request, call?: GuestCall): Promise<WorkerReply> {
    if (this.closed) throw new Error("the sandbox is closed");
    const s = this.slots[slot];
    if (s.dormant) throw new WorkerLost(false);
    await s.ready;
    if (this.slots[slot] !== s) throw new WorkerLost(false);
    const id = this.nextId++;
    return new Promise<WorkerReply>((resolve, reject) => {
      const pending: Pending = { resolve, reject, call };
      // The worker runs calls in the order sent: one sent to an idle worker runs from now.
      if (s.pending.size === 0) pending.runningSince = performance.now();
      s.pending.set(id, pending);
      s.worker.postMessage({ ...request, id } as ToWorker);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.monitor);
    for (const s of this.slots) {
      if (s.dormant) continue;
      for (const p of s.pending.values()) p.reject(new Error("the sandbox is closed"));
      s.pending.clear();
      s.worker.terminate();
    }
  }

  private spawn(generation: number): Slot {
    const worker = new Worker(WORKER_URL);
    let markReady!: () => void;
    const control = new SharedArrayBuffer(CONTROL_BYTES);
    const cells = MemoryLedger.workerCells();
    const slot: Slot = {
      worker,
      dormant: false,
      exclusive: false,
      words: new Int32Array(control, 0, 2),
      cpuAt: new Float64Array(control, 8, 1),
      cells,
      cpuClock: null,
      memoryBytes: 0,
      ready: new Promise<void>((r) => (markReady = r)),
      generation,
      contexts: 0,
      groups: new Map(),
      pending: new Map(),
    };
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const data = event.data;
      // The setup first: every request waits for `ready`, so it reaches the worker before any of them.
      if ("ready" in data) {
        slot.cpuClock = cpuClockOfThread(data.tid, data.clock);
        worker.postMessage({ op: "setup", control, ledger: this.ledger.shared, cells, budget: this.ledger.budget, nice: this.nice } satisfies ToWorker);
        return markReady();
      }
      if ("log" in data) return slot.pending.get(data.id)?.call?.onLog(data.log);
      const pending = slot.pending.get(data.id);
      if (!pending) return;
      invariant(slot.pending.keys().next().value === data.id, "a worker answers its calls in the order they were sent");
      slot.pending.delete(data.id);
      slot.memoryBytes = data.memoryBytes;
      const next = slot.pending.values().next().value;
      if (next) next.runningSince = performance.now();
      if (!data.ok && data.kind === "preempted") this.preemptions++;
      pending.resolve(data);
      if (!data.ok && data.fatal) this.replaceSlot(slot, null);
    };
    worker.onerror = () => this.replaceSlot(slot, null);
    // A worker never exits by itself: an exit (a crash of the runtime under it) means replacement.
    // Either way its thread has ended: its memory is gone, and its pages return to the budget.
    worker.addEventListener("close", () => {
      this.ledger.release(cells);
      this.replaceSlot(slot, null);
    });
    return slot;
  }

  private replaceSlot(slot: Slot, culpritId: number | null): void {
    if (slot.dormant) return; // retired on purpose (retireIfIdle), not lost
    const index = this.slots.indexOf(slot);
    if (index >= 0 && !this.closed) this.replace(index, culpritId);
  }

  private replace(index: number, culpritId: number | null, reason?: string): void {
    const old = this.slots[index];
    this.slots[index] = this.spawn(old.generation + 1);
    this.replacements++;
    old.worker.terminate();
    for (const [id, p] of old.pending) p.reject(new WorkerLost(id === culpritId, reason));
    old.pending.clear();
  }
}
