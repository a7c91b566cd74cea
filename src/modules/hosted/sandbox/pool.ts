/**
 * The worker threads hosted bots run in, seen from the server's event loop: it only posts
 * messages and waits for replies, so a bot that loops costs this thread nothing. A worker that
 * stops answering (a guest stuck where the interrupt handler cannot reach it) or reports that
 * its WebAssembly module broke is terminated and replaced; its contexts are lost, and every
 * call waiting on it fails with WorkerLost (`culprit` for the call that was running).
 */
import type { FromWorker, ToWorker } from "./messages.ts";

export class WorkerLost extends Error {
  constructor(readonly culprit: boolean) {
    super(culprit ? "the sandbox worker stopped answering during this call and was replaced" : "the sandbox worker was replaced while this call waited");
  }
}

/** A message to a worker, without the id the pool assigns. */
export type Request = ToWorker extends infer T ? (T extends { id: number } ? Omit<T, "id"> : never) : never;

interface Pending {
  resolve(reply: FromWorker): void;
  reject(error: Error): void;
  timer?: ReturnType<typeof setTimeout>;
  /** Whose call it is (a guest call of a context in a group), for preemption. */
  owner?: CallOwner;
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
const PREEMPT_AFTER_MS = 50;

interface Slot {
  worker: Worker;
  /** Retired while idle (its thread ended); pick() starts a new worker in its place when needed. */
  dormant: boolean;
  /** Given to one seat alone (a bot moved off a shared worker): pick() gives it to no one else. */
  exclusive: boolean;
  /** Shared with the worker: the id of a call to stop (see PREEMPT_AFTER_MS). */
  preempt: Int32Array;
  ready: Promise<void>;
  /** Bumped on every replacement: a context opened under an older generation is gone. */
  generation: number;
  contexts: number;
  /** Contexts per group (a match's seats): a group's contexts share one worker. */
  groups: Map<string, number>;
  /** In send order: the worker answers in order, so the first is the one running. */
  pending: Map<number, Pending>;
}

const WORKER_URL = new URL("./worker.ts", import.meta.url);

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers replaced so far (a figure for stats, metrics and tests). */
  replacements = 0;
  /** Guest calls stopped because they held up another match (their seats moved to a worker of their own). */
  preemptions = 0;

  constructor(
    private readonly minSize: number,
    private readonly maxSize: number,
    private readonly graceMs: number,
    /** How long a worker beyond the minimum stays idle before its thread ends (starting one costs ~0.2 s). */
    private readonly idleMs: number,
  ) {
    for (let i = 0; i < minSize; i++) this.slots.push(this.spawn(0));
    this.monitor = setInterval(() => this.preemptLongCalls(), PREEMPT_AFTER_MS / 2);
    this.monitor.unref();
  }

  private readonly monitor: ReturnType<typeof setInterval>;

  /**
   * Stops a guest call that holds up another match: it has run PREEMPT_AFTER_MS on a shared worker
   * and a call of another group waits behind it. Its seat moves to a worker of its own (seat.ts).
   */
  private preemptLongCalls(): void {
    const now = performance.now();
    for (const s of this.slots) {
      if (s.dormant || s.exclusive || s.pending.size < 2) continue;
      const [headId, head] = s.pending.entries().next().value as [number, Pending];
      if (!head.owner || head.runningSince === undefined || now - head.runningSince < PREEMPT_AFTER_MS) continue;
      const othersWait = [...s.pending.values()].some((p) => p.owner !== undefined && p.owner.group !== head.owner!.group);
      if (othersWait) Atomics.store(s.preempt, 0, headId);
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
   * else a new one (up to maxSize), else the least loaded.
   */
  pick(group: string | null): number {
    if (group !== null) {
      const held = this.slots.findIndex((s) => !s.dormant && !s.exclusive && s.groups.has(group));
      if (held >= 0) return held;
    }
    const free = this.freeSlot(this.maxSize);
    if (free >= 0) return free;
    let best = -1;
    for (const i of this.liveSlots()) if (!this.slots[i].exclusive && (best < 0 || this.slots[i].contexts < this.slots[best].contexts)) best = i;
    return best < 0 ? this.liveSlots()[0] : best;
  }

  /**
   * A worker for one seat alone, marked exclusive: an empty or retired one, else a new one, past
   * maxSize if need be (up to twice it: a bot is moved here only after it held up another match,
   * which is rare); only beyond that, the least loaded shared one.
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
      this.slots[dormant] = this.spawn(this.slots[dormant].generation + 1);
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
    s.contexts = Math.max(0, s.contexts + delta);
    if (group === null) return;
    const count = (s.groups.get(group) ?? 0) + delta;
    if (count > 0) s.groups.set(group, count);
    else s.groups.delete(group);
  }

  /** A worker beyond the minimum that still holds no context and has nothing in flight `idleMs` from now ends its thread. */
  retireIfIdle(slot: number, generation: number): void {
    const idle = () => {
      const s = this.slots[slot];
      return slot >= this.minSize && s.generation === generation && !s.dormant && s.contexts === 0 && s.pending.size === 0;
    };
    if (!idle()) return;
    const retire = () => {
      if (!idle() || this.closed) return;
      const s = this.slots[slot];
      s.dormant = true;
      s.worker.terminate();
    };
    if (this.idleMs <= 0) return retire();
    setTimeout(retire, this.idleMs).unref();
  }

  /**
   * Sends one request; `watchdogMs` (for guest code: its CPU budget) sets how long, on the wall
   * clock, the worker may take before it is presumed stuck and replaced: twice the budget (a guest
   * on a busy machine waits for a core, and its budget counts CPU time) plus the grace.
   */
  async request(slot: number, request: Request, watchdogMs?: number, owner?: CallOwner): Promise<FromWorker> {
    if (this.closed) throw new Error("the sandbox is closed");
    const s = this.slots[slot];
    if (s.dormant) throw new WorkerLost(false);
    await s.ready;
    if (this.slots[slot] !== s) throw new WorkerLost(false);
    const id = this.nextId++;
    return new Promise<FromWorker>((resolve, reject) => {
      const pending: Pending = { resolve, reject, owner };
      // The worker runs calls in the order sent: one sent to an idle worker runs from now.
      if (s.pending.size === 0) pending.runningSince = performance.now();
      s.pending.set(id, pending);
      s.worker.postMessage({ ...request, id } as ToWorker);
      if (watchdogMs !== undefined) this.watch(slot, s, id, 2 * watchdogMs + this.graceMs);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.monitor);
    for (const s of this.slots) {
      if (s.dormant) continue;
      for (const p of s.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error("the sandbox is closed"));
      }
      s.pending.clear();
      s.worker.terminate();
    }
  }

  // The clock starts when the call reaches the head of the worker's queue, not when it is sent:
  // calls queued behind a slow one are not blamed for its time.
  private watch(slot: number, s: Slot, id: number, ms: number): void {
    const arm = () => {
      const pending = s.pending.get(id);
      if (!pending) return;
      if (s.pending.keys().next().value !== id) {
        pending.timer = setTimeout(arm, Math.min(ms, 50));
        return;
      }
      pending.timer = setTimeout(() => {
        if (s.pending.has(id) && this.slots[slot] === s) this.replace(slot, id);
      }, ms);
    };
    arm();
  }

  private spawn(generation: number): Slot {
    const worker = new Worker(WORKER_URL);
    let markReady!: () => void;
    const preempt = new SharedArrayBuffer(4);
    const slot: Slot = { worker, dormant: false, exclusive: false, preempt: new Int32Array(preempt), ready: new Promise<void>((r) => (markReady = r)), generation, contexts: 0, groups: new Map(), pending: new Map() };
    worker.onmessage = (event: MessageEvent<FromWorker | { ready: true }>) => {
      const data = event.data;
      // The flag first: every request waits for `ready`, so it reaches the worker before any of them.
      if ("ready" in data) {
        worker.postMessage({ op: "preempt-flag", flag: preempt } satisfies ToWorker);
        return markReady();
      }
      const pending = slot.pending.get(data.id);
      if (!pending) return;
      slot.pending.delete(data.id);
      clearTimeout(pending.timer);
      const next = slot.pending.values().next().value;
      if (next) next.runningSince = performance.now();
      if (!data.ok && data.kind === "preempted") this.preemptions++;
      pending.resolve(data);
      if (!data.ok && data.fatal) this.replaceSlot(slot, null);
    };
    worker.onerror = () => this.replaceSlot(slot, null);
    // A worker never exits by itself: an exit (a crash of the runtime under it) means replacement.
    worker.addEventListener("close", () => this.replaceSlot(slot, null));
    return slot;
  }

  private replaceSlot(slot: Slot, culpritId: number | null): void {
    if (slot.dormant) return; // retired on purpose (retireIfIdle), not lost
    const index = this.slots.indexOf(slot);
    if (index >= 0 && !this.closed) this.replace(index, culpritId);
  }

  private replace(index: number, culpritId: number | null): void {
    const old = this.slots[index];
    this.slots[index] = this.spawn(old.generation + 1);
    this.replacements++;
    old.worker.terminate();
    for (const [id, p] of old.pending) {
      clearTimeout(p.timer);
      p.reject(new WorkerLost(id === culpritId));
    }
    old.pending.clear();
  }
}
