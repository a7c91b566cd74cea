/**
 * Durations in milliseconds, the last `capacity` of them (a ring), with percentiles on demand:
 * cheap enough to record on every message of a hot path.
 */
export class LatencyRecorder {
  private readonly samples: Float64Array;
  private next = 0;
  private filled = 0;

  constructor(capacity = 100_000) {
    this.samples = new Float64Array(capacity);
  }

  /** Also told of every sample (metrics histograms), when set. */
  observe: ((ms: number) => void) | undefined;

  record(ms: number): void {
    this.observe?.(ms);
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    if (this.filled < this.samples.length) this.filled++;
  }

  reset(): void {
    this.next = 0;
    this.filled = 0;
  }

  /** Nearest-rank percentiles (p in 0–100) of the samples held; null when there are none. */
  summary(): { count: number; p50: number; p99: number; max: number } | null {
    if (this.filled === 0) return null;
    const sorted = this.samples.slice(0, this.filled).sort();
    const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
    return { count: this.filled, p50: rank(50), p99: rank(99), max: sorted[sorted.length - 1] };
  }
}
