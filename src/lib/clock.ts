/**
 * The one source of time. Everything that reads the time or waits goes through it,
 * so tests can move time forward without sleeping. It doubles as an XState clock.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: (...args: any[]) => void, ms: number): any;
  clearTimeout(id: any): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/** A clock that only moves when told to; timers fire in due order on `advance`. */
export class ManualClock implements Clock {
  private current: number;
  private nextTimerId = 1;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: (...args: any[]) => void, ms: number): number {
    const id = this.nextTimerId++;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(id: unknown): void {
    this.timers.delete(id as number);
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let dueId = -1;
      let dueAt = Infinity;
      for (const [id, timer] of this.timers) {
        if (timer.at <= target && timer.at < dueAt) {
          dueAt = timer.at;
          dueId = id;
        }
      }
      if (dueId === -1) break;
      const timer = this.timers.get(dueId)!;
      this.timers.delete(dueId);
      this.current = Math.max(this.current, timer.at);
      timer.fn();
    }
    this.current = target;
  }
}
