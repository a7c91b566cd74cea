/** The applier's side of luck-worker.ts: one worker thread, started at the first match, ended by close(). */
import type { RatedMatch } from "./luck";
import type { StoredMatchPart } from "../match-host/recorded-hands";

const WORKER_URL = new URL("./luck-worker.ts", import.meta.url).href;

/** A match whose hands the adjustment rejects (an invariant failed): retrying gives the same answer. */
export class UnratableMatch extends Error {}

interface Waiting {
  resolve: (rated: RatedMatch) => void;
  reject: (error: Error) => void;
}

export class LuckThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  /** Milliseconds the worker spent computing so far (the applier leaves them out when it asks how busy play is). */
  computeMs = 0;
  /** Hands it computed so far: computeMs / handsComputed is its cost per hand (bench:e2e prints it). */
  handsComputed = 0;
  private closed = false;

  /** The match's results per player and their estimator (luck.ts `ratedMatchOf`) from its hands as stored, decoded and computed off this thread. */
  results(botIds: string[], parts: StoredMatchPart[]): Promise<RatedMatch> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, botIds, parts });
    });
  }

  /** Ends the worker: what it was computing fails at once, and nothing starts it again. */
  close(): void {
    this.closed = true;
    this.worker?.terminate();
    this.lost(new Error("the ratings worker was closed"));
  }

  private started(): Worker {
    if (this.closed) throw new Error("the ratings worker was closed");
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_URL);
    // It never keeps the process alive on its own: the applier's close ends it at shutdown.
    worker.unref();
    worker.onmessage = (event: MessageEvent<{ id: number; ms: number; hands?: number; rated?: RatedMatch; error?: string }>) => {
      this.computeMs += event.data.ms;
      this.handsComputed += event.data.hands ?? 0;
      const waiting = this.waiting.get(event.data.id);
      this.waiting.delete(event.data.id);
      if (event.data.error !== undefined) waiting?.reject(new UnratableMatch(event.data.error));
      else waiting?.resolve(event.data.rated!);
    };
    worker.onerror = (event) => {
      worker.terminate();
      this.lost(new Error(`the ratings worker failed: ${(event as ErrorEvent).message}`));
    };
    return (this.worker = worker);
  }

  /** The worker is gone: everything it was computing fails (the applier retries), the next call starts a new one. */
  private lost(error: Error): void {
    this.worker = null;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
