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
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  /** Bumped on every replacement: a context opened under an older generation is gone. */
  generation: number;
  contexts: number;
  /** In send order: the worker answers in order, so the first is the one running. */
  pending: Map<number, Pending>;
}

const WORKER_URL = new URL("./worker.ts", import.meta.url);

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers replaced so far (a figure for stats and tests). */
  replacements = 0;

  constructor(size: number, private readonly graceMs: number) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn(0));
  }

  get size(): number {
    return this.slots.length;
  }

  /** The worker with the fewest contexts, for a new one. */
  pick(): number {
    let best = 0;
    for (let i = 1; i < this.slots.length; i++) if (this.slots[i].contexts < this.slots[best].contexts) best = i;
    return best;
  }

  generation(slot: number): number {
    return this.slots[slot].generation;
  }

  /** Counts contexts per worker, for pick(). */
  adjustContexts(slot: number, generation: number, delta: number): void {
    const s = this.slots[slot];
    if (s.generation === generation) s.contexts = Math.max(0, s.contexts + delta);
  }

  /**
   * Sends one request; `watchdogMs` (for guest code: its budget plus the grace) is how long the
   * worker may take before it is presumed stuck and replaced.
   */
  async request(slot: number, request: Request, watchdogMs?: number): Promise<FromWorker> {
    if (this.closed) throw new Error("the sandbox is closed");
    const s = this.slots[slot];
    await s.ready;
    if (this.slots[slot] !== s) throw new WorkerLost(false);
    const id = this.nextId++;
    return new Promise<FromWorker>((resolve, reject) => {
      const pending: Pending = { resolve, reject };
      s.pending.set(id, pending);
      s.worker.postMessage({ ...request, id } as ToWorker);
      if (watchdogMs !== undefined) this.watch(slot, s, id, watchdogMs + this.graceMs);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) {
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
    const slot: Slot = { worker, ready: new Promise<void>((r) => (markReady = r)), generation, contexts: 0, pending: new Map() };
    worker.onmessage = (event: MessageEvent<FromWorker | { ready: true }>) => {
      const data = event.data;
      if ("ready" in data) return markReady();
      const pending = slot.pending.get(data.id);
      if (!pending) return;
      slot.pending.delete(data.id);
      clearTimeout(pending.timer);
      pending.resolve(data);
      if (!data.ok && data.fatal) this.replaceSlot(slot, null);
    };
    worker.onerror = () => this.replaceSlot(slot, null);
    // A worker never exits by itself: an exit (a crash of the runtime under it) means replacement.
    worker.addEventListener("close", () => this.replaceSlot(slot, null));
    return slot;
  }

  private replaceSlot(slot: Slot, culpritId: number | null): void {
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
