/**
 * A hosted bot in one match (one copy, for duplicate): its own fresh context, its failures and its
 * logs. Whatever the guest does, decide() resolves: with the bot's answer made legal by the SDK's
 * rules (as the SDK makes any bot's answer legal before it leaves), or with why there is none. What
 * is played instead (the no-answer fallback; fold once the failures are exhausted) is decided by the
 * seat around it (src/modules/seats/decide.ts); the failures are counted by the one failure rule
 * (seats/rules.ts FailureCount): once exhausted, the bot is not run again and its context is freed.
 */
import type { Action } from "@poker-bots/sdk/actions";
import type { LogEntry } from "@poker-bots/sdk/logger";
import type { ActionRequestMessage, ServerMessage } from "@poker-bots/sdk/messages";
import { legalize } from "@poker-bots/sdk/session";
import { decisionState } from "@poker-bots/sdk/state";
import { invariant } from "../../../lib/assert.ts";
import { FailureCount } from "../../seats/rules.ts";
import { MatchLogBudget, type SandboxLimits } from "./limits.ts";
import type { FailureKind, GuestAnswer, GuestLogLine, WorkerReply } from "./messages.ts";
import { WorkerLost, type SandboxPool } from "./pool.ts";

export interface HostedLogLine extends GuestLogLine {
  /** "bot": the bot's console and the SDK's warnings; "host": what the sandbox did about it. */
  source: "bot" | "host";
  handNumber: number | null;
  kind?: FailureKind;
}

export type Decision = { ok: true; action: Action; ms: number } | { ok: false; ms: number; kind: FailureKind; message: string };

export type Delivery = { ok: true; ms: number } | { ok: false; ms: number; kind: FailureKind; message: string };

export interface DecideOptions {
  /** CPU budget for this decision (the action clock left, plus the time bank); default limits.decisionMs. */
  budgetMs?: number;
  /** What Date.now() says inside the guest during this call; default the host's clock. */
  nowMs?: number;
}

/** Thrown by open() when the bot cannot even be loaded (its top-level code failed, or no default bot). */
export class SandboxOpenError extends Error {
  constructor(readonly kind: FailureKind, message: string, readonly logs: GuestLogLine[]) {
    super(message);
  }
}

type Outcome = { ok: true; ms: number; result?: GuestAnswer } | { ok: false; ms: number; kind: FailureKind; message: string };

let nextContextId = 1;

/**
 * How many times one call is run again on a rebuilt context after the worker under it was replaced
 * for another bot's doing. The one that stopped answering moves to a worker of its own, so a second
 * loss is already unlikely; a third is a broken sandbox, and the call fails (`crashed`).
 */
const REBUILDS_PER_CALL = 2;

export class HostedSeat {
  private slot = -1;
  private generation = -1;
  private readonly contextId = nextContextId++;
  private readonly lines: HostedLogLine[] = [];
  private handNumber: number | null = null;
  private closed = false;
  private released = false;
  /** Moved off a shared worker (it held up another match, or stopped answering): it has a worker to itself from then on. */
  private alone = false;
  /** Its context is gone (its call stopped answering and its worker was replaced): why, for the line that says it was reopened. */
  private lost: string | null = null;
  /** The match's failures of this bot (decisions and hooks alike). */
  private readonly failureCount: FailureCount;

  private constructor(
    private readonly pool: SandboxPool,
    private readonly code: string,
    private readonly limits: SandboxLimits,
    readonly botId: string | null,
    /** Contexts of one group share a worker (SandboxPool.pick): a match's seats. */
    private readonly group: string | null,
    /** The bot's log budget for the match (shared with its other copy in a duplicate match). */
    private readonly logBudget: MatchLogBudget,
  ) {
    this.failureCount = new FailureCount(limits.failuresPerMatch);
  }

  get failures(): number {
    return this.failureCount.count;
  }

  /** Its failures are exhausted: it is not run again this match. */
  get disabled(): boolean {
    return this.failureCount.exhausted;
  }

  static async open(
    pool: SandboxPool,
    code: string,
    limits: SandboxLimits,
    botId: string | null,
    group: string | null,
    logBudget = new MatchLogBudget(limits),
    nowMs = Date.now(),
  ): Promise<HostedSeat> {
    const seat = new HostedSeat(pool, code, limits, botId, group, logBudget);
    const loaded: GuestLogLine[] = [];
    const reply = await seat.load(nowMs, loaded);
    if (!reply.ok) throw new SandboxOpenError(reply.kind, reply.message, loaded);
    return seat;
  }

  /** An action_request, answered, or why not (a failure, counted and logged). Never rejects. */
  async decide(request: ActionRequestMessage, options: DecideOptions = {}): Promise<Decision> {
    this.handNumber = request.handNumber;
    const state = decisionState(request, { botId: this.botId, matchId: request.matchId, config: null, handNumber: request.handNumber, button: null, history: [] });
    if (this.disabled) return { ok: false, ms: 0, kind: "disabled", message: "folded for the rest of the match after repeated failures" };
    const outcome = await this.run(JSON.stringify(request), options.budgetMs ?? this.limits.decisionMs, options.nowMs);
    if (!outcome.ok) return { ...this.fail(outcome.kind, outcome.message), ms: outcome.ms };
    // The guest's own legality check is not trusted: the answer is checked again here, by the SDK's rules.
    let illegal: string | null = null;
    const action = legalize(outcome.result?.decided ? outcome.result.answer : null, state, (entry: LogEntry) => {
      if (entry.level === "warn") illegal = String(entry.reason);
    });
    if (illegal !== null) return { ...this.fail("illegal", illegal), ms: outcome.ms };
    return { ok: true, action, ms: outcome.ms };
  }

  /**
   * Any other server message (hand_started, action, hand_ended …): keeps the bot's hand context,
   * runs its hooks. `nowMs`: what Date.now() says inside the guest meanwhile (default the host's clock).
   */
  async notify(message: ServerMessage, options: { nowMs?: number } = {}): Promise<Delivery> {
    if ("handNumber" in message && typeof message.handNumber === "number") this.handNumber = message.handNumber;
    if (this.disabled) return { ok: false, ms: 0, kind: "disabled", message: "folded for the rest of the match after repeated failures" };
    const outcome = await this.run(JSON.stringify(message), this.limits.hookMs, options.nowMs);
    return outcome.ok ? { ok: true, ms: outcome.ms } : { ...this.fail(outcome.kind, `${message.type}: ${outcome.message}`), ms: outcome.ms };
  }

  /** The bot's log lines (bounded per match) and the host's lines about it, oldest first; from line `from` on. */
  logs(from = 0): HostedLogLine[] {
    return this.lines.slice(from);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  /**
   * Opens the context (again, after a loss or a move); the bot's lines written meanwhile go to
   * `loaded` too. `nowMs`: what Date.now() says while its file loads — for a context reopened
   * mid-match, the time of the call it is reopened for (the match clock), never the host's.
   */
  private async load(nowMs: number, loaded: GuestLogLine[] = []): Promise<WorkerReply> {
    this.slot = this.alone ? this.pool.pickAlone() : this.pool.pick(this.group);
    this.generation = this.pool.generation(this.slot);
    this.lost = null;
    this.pool.adjustContexts(this.slot, this.generation, 1, this.group);
    const onLog = (line: GuestLogLine) => {
      loaded.push(line);
      this.keep(line);
    };
    const open = { op: "open", contextId: this.contextId, code: this.code, limits: this.limits, nowMs } as const;
    const reply = await this.pool.request(this.slot, open, { budgetMs: this.limits.loadMs, onLog }).catch(
      (error): WorkerReply => ({ id: 0, ok: false, ms: 0, memoryBytes: 0, kind: error instanceof WorkerLost && error.culprit ? "timeout" : "crashed", message: String((error as Error).message) }),
    );
    if (!reply.ok) {
      this.pool.adjustContexts(this.slot, this.generation, -1, this.group);
      this.pool.retireIfIdle(this.slot, this.generation);
    }
    return reply;
  }

  /**
   * One guest call. A worker lost under it is survivable for the bystanders: the context is
   * rebuilt (the bot's own memory from before is gone, and a host line says so) and the call run
   * again. The call that was running when the worker hung is the one that failed: its bot moves to
   * a worker of its own, so it can hang no one else's again.
   */
  private async run(message: string, budgetMs: number, nowMs = Date.now(), rebuilds = 0): Promise<Outcome> {
    if (this.closed) return { ok: false, ms: 0, kind: "crashed", message: "the seat is closed" };
    if (this.lost !== null || this.pool.generation(this.slot) !== this.generation) {
      this.hostLine("warn", this.lost ?? "the context was restarted: the worker it ran in was replaced (another bot ran away); this bot's memory from before is gone");
      const reopened = await this.load(nowMs);
      if (!reopened.ok) {
        // No context to call: the next call tries again.
        this.lost = `its context is reopened again: the last try failed (${reopened.kind})`;
        return { ok: false, ms: 0, kind: reopened.kind, message: reopened.message };
      }
    }
    let reply: WorkerReply;
    try {
      const call = { budgetMs, owner: { group: this.group }, onLog: (line: GuestLogLine) => this.keep(line) };
      reply = await this.pool.request(this.slot, { op: "call", contextId: this.contextId, message, budgetMs, nowMs }, call);
    } catch (error) {
      if (!(error instanceof WorkerLost)) return { ok: false, ms: 0, kind: "crashed", message: String((error as Error).message) };
      if (error.culprit) {
        this.alone = true;
        this.lost = "its context was reopened on a worker of its own: its last call stopped answering and its worker was replaced (this bot's memory from before is gone)";
        return { ok: false, ms: budgetMs, kind: "timeout", message: `${error.message} (it ran past its ${budgetMs} ms budget)` };
      }
      if (rebuilds >= REBUILDS_PER_CALL) return { ok: false, ms: 0, kind: "crashed", message: error.message };
      // A bystander: its context is rebuilt (the generation moved on) and the call runs again.
      invariant(this.pool.generation(this.slot) !== this.generation, "a call lost with its worker finds the worker replaced");
      return this.run(message, budgetMs, nowMs, rebuilds + 1);
    }
    if (!reply.ok && reply.kind === "preempted") return this.runAlone(message, budgetMs, reply.ms, nowMs);
    return reply.ok ? { ok: true, ms: reply.ms, result: reply.result } : { ok: false, ms: reply.ms, kind: reply.kind, message: reply.message };
  }

  /**
   * The call held up another match on a shared worker and was stopped there: the bot moves to a
   * worker of its own (a fresh context: its memory from before is gone, as when a worker is
   * replaced) and the call runs again with the rest of its budget. It stays alone for the match.
   */
  private async runAlone(message: string, budgetMs: number, spentMs: number, nowMs: number): Promise<Outcome> {
    invariant(spentMs >= 0, "a preempted call moves with the time it ran");
    this.hostLine("warn", "a call ran long while another match's bot waited for the same worker: this bot moved to a worker of its own (its context was reopened there, its memory from before is gone) and the call ran again with the rest of its budget");
    await this.release();
    this.released = false;
    this.alone = true;
    const reopened = await this.load(nowMs);
    if (!reopened.ok) {
      this.lost = `its context is reopened again: the last try failed (${reopened.kind})`;
      return { ok: false, ms: 0, kind: reopened.kind, message: reopened.message };
    }
    if (spentMs >= budgetMs) return { ok: false, ms: spentMs, kind: "timeout", message: "its budget was spent before it was moved" };
    // The time it ran before it was stopped counts: one budget for the call, wherever it ran.
    const outcome = await this.run(message, budgetMs - spentMs, nowMs, REBUILDS_PER_CALL);
    return { ...outcome, ms: outcome.ms + spentMs };
  }

  private fail(kind: FailureKind, message: string): { ok: false; kind: FailureKind; message: string } {
    const exhausted = this.failureCount.record();
    this.hostLine("warn", `decision failed (${kind}): ${message}; the no-answer fallback was sent`, kind);
    if (exhausted) {
      this.hostLine("error", `${this.failures} failures in this match: the bot is folded for the rest of it`, "disabled");
      void this.release();
    }
    return { ok: false, kind, message };
  }

  /** A line the bot wrote, as it comes (posted by the worker the moment it is written, so a call that never answers keeps it). */
  private keep(line: GuestLogLine): void {
    const verdict = this.logBudget.admit(line.text);
    if (verdict === "kept") this.lines.push({ ...line, source: "bot", handNumber: this.handNumber });
    else if (verdict === "limit") this.hostLine("warn", this.logBudget.limitLine());
  }

  private hostLine(level: GuestLogLine["level"], text: string, kind?: FailureKind): void {
    this.lines.push({ level, text, source: "host", handNumber: this.handNumber, ...(kind ? { kind } : {}) });
  }

  /** Frees the context (the seat stays, answering fold if it was disabled). */
  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.pool.generation(this.slot) !== this.generation) return;
    this.pool.adjustContexts(this.slot, this.generation, -1, this.group);
    await this.pool.request(this.slot, { op: "close", contextId: this.contextId }).catch(() => undefined);
    if (this.alone) this.pool.share(this.slot, this.generation);
    this.pool.retireIfIdle(this.slot, this.generation);
  }
}
