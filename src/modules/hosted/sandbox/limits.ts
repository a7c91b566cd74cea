import { invariant } from "../../../lib/assert.ts";

/**
 * The limits every hosted bot runs under: the same for everyone (docs/HOSTED.md lists them).
 * A table host may pass a smaller per-call budget (the action clock left plus the time bank),
 * never a larger one than the caller decides; the rest are fixed per context.
 */
export interface SandboxLimits {
  /** CPU time (sandbox time, not queue time) one decide() may use when the caller names no budget. */
  decisionMs: number;
  /**
   * CPU time to load the bot (its script's top-level code; the SDK's evaluator tables are handed
   * in already built: the starter bot loads in ~50 ms), once per match.
   */
  loadMs: number;
  /** CPU time a hook (onHandStarted, onMatchEnded …) or the bot's top-level code may use. */
  hookMs: number;
  /** Heap of one context (one QuickJS runtime per bot per match). */
  memoryBytes: number;
  /** JavaScript stack of one context: deep recursion ends in a stack overflow, not a crash. */
  stackBytes: number;
  /** console.* volume kept per match; later lines are dropped (one "log limit reached" line says so). */
  logBytesPerMatch: number;
  logLinesPerMatch: number;
  /** One log line is cut at this many characters. */
  logLineChars: number;
  /** Failed decisions in one match after which the bot is folded for the rest of it. */
  failuresPerMatch: number;
  /** An answer (decide's return value) larger than this, as JSON, is an illegal answer. */
  answerBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  decisionMs: 1_000,
  loadMs: 2_000,
  hookMs: 200,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 512 * 1024,
  logBytesPerMatch: 64 * 1024,
  logLinesPerMatch: 500,
  logLineChars: 1_000,
  failuresPerMatch: 3,
  answerBytes: 4 * 1024,
});

/**
 * One bot's log budget in one match, shared by every context the match opens for it: both copies of
 * a duplicate match, and a context reopened after its worker was replaced or it was moved. (Each
 * context also stops keeping lines at the same limits, so a chatty bot cannot grow a worker's memory.)
 */
export class MatchLogBudget {
  private lines = 0;
  private bytes = 0;
  private full = false;

  constructor(private readonly limits: SandboxLimits) {}

  /** "kept": the line fits; "limit": it is the first that does not (say so once); "dropped": later ones. */
  admit(text: string): "kept" | "limit" | "dropped" {
    if (this.full) return "dropped";
    const bytes = text.length + 16; // its characters and a fixed overhead per line
    if (this.lines + 1 > this.limits.logLinesPerMatch || this.bytes + bytes > this.limits.logBytesPerMatch) {
      this.full = true;
      return "limit";
    }
    this.lines++;
    this.bytes += bytes;
    invariant(this.lines <= this.limits.logLinesPerMatch && this.bytes <= this.limits.logBytesPerMatch, "a match's log budget holds");
    return "kept";
  }

  /** True from the first line that did not fit: every later one is dropped. */
  get spent(): boolean {
    return this.full;
  }

  /** The line that says the budget is spent. */
  limitLine(): string {
    return `log limit reached (${this.limits.logLinesPerMatch} lines or ${this.limits.logBytesPerMatch >> 10} KiB per match): later lines are dropped`;
  }
}

/** Caller overrides on top of the defaults (tests use small budgets; production uses the defaults). */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
