/**
 * Hosted bots at a table, for one match: each hosted seat gets a fresh sandbox context with its
 * pinned version's code, hears every message a remote bot would, and is asked for actions (the
 * action clock around it is the match host's). Its log lines and failures become hosted_logs rows,
 * written after each hand that produced any and at the match's end.
 *
 * Duplicate matches (hand 2k replays hand 2k − 1's deal with the seats swapped): each hosted seat
 * plays with TWO contexts, one per copy. Copy 1 plays the odd hands (the first copy of every deal),
 * copy 2 the even hands (the second copies), each hearing only its own hands' messages; neither can
 * remember a deal's other copy, yet each keeps its memory of the match's earlier hands, as in the
 * ACPC's duplicate, where each copy of the match is played by a freshly started bot.
 */
import type { ActionRequestMessage, ServerMessage } from "@poker-bots/protocol";
import type { Action } from "@poker-bots/sdk/actions";
import type { Db } from "../../db";
import { appendHostedLogs, type CodeVersion, type HostedLogRow } from "./code-store";
import { MatchLogBudget, SandboxOpenError, type FailureKind, type HostedLogLine, type HostedSeat, type Sandbox } from "./sandbox";

/** A decision's outcome as counted (metrics): its answer was used, or why not. */
export type DecisionOutcome = "ok" | FailureKind;

/** A hosted seat of a match: its bot and the version the match pinned. */
export interface HostedSeatPlan {
  botId: string;
  code: CodeVersion;
}

export interface HostedDecision {
  action: Action;
  ok: boolean;
  /** Sandbox time the decision ran. */
  ms: number;
}

/** The node's hosted play: opens matches' hosted seats in its one sandbox and counts what they do. */
export class HostedPlay {
  /** Sandbox contexts open for matches on this node now. */
  openContexts = 0;
  private matchesOpened = 0;
  /** Hears every hosted decision (metrics); must not throw. */
  onDecision: (outcome: DecisionOutcome, ms: number) => void = () => {};

  constructor(
    readonly sandbox: Sandbox,
    private readonly db: Db,
    private readonly now: () => number,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /**
   * Opens a fresh context per hosted seat (two for a duplicate match) with its pinned code. A bot
   * whose code cannot even load (a worker lost at that moment) folds all match, and its log says why.
   */
  async openMatch(seats: HostedSeatPlan[], options: { duplicate: boolean; matchId: () => string | null }): Promise<MatchPlayers> {
    // One worker for the match's contexts: a bot that runs its whole budget stalls only this match.
    const group = `match-${++this.matchesOpened}`;
    const players = await Promise.all(
      seats.map(async (plan) => {
        // One log budget per bot per match, whichever copy or context spends it.
        const logBudget = new MatchLogBudget(this.sandbox.limits);
        const copies = await Promise.all(Array.from({ length: options.duplicate ? 2 : 1 }, () => this.openContext(plan, group, logBudget)));
        return new HostedPlayer(plan, copies.map((c) => c.seat), copies.flatMap((c) => c.problems));
      }),
    );
    return new MatchPlayers(this, players, options);
  }

  /** Appends a match's log rows (the match host's writes are its own; these never block a hand). */
  writeLogs(rows: HostedLogRow[]): Promise<void> {
    return appendHostedLogs(this.db, rows).catch((error) => this.log(`writing ${rows.length} hosted log rows failed`, error));
  }

  timestamp(): Date {
    return new Date(this.now());
  }

  private async openContext(plan: HostedSeatPlan, group: string, logBudget: MatchLogBudget, attempt = 1): Promise<{ seat: HostedSeat | null; problems: HostedLogLine[] }> {
    try {
      const seat = await this.sandbox.open(plan.code.bundled, { botId: plan.botId, group, logBudget });
      this.openContexts += 1;
      return { seat, problems: [] };
    } catch (error) {
      const kind: FailureKind = error instanceof SandboxOpenError ? error.kind : "crashed";
      // Its code loaded at upload: a load that times out or loses its worker is most likely the node's
      // doing (a worker still cold, a busy machine just after a restart), so it gets a second try.
      if (attempt === 1 && (kind === "timeout" || kind === "crashed")) return this.openContext(plan, group, logBudget, 2);
      this.log(`hosted bot ${plan.botId} v${plan.code.version} could not be loaded (${kind}): it folds this match`, error);
      const logs = error instanceof SandboxOpenError ? error.logs.map((line): HostedLogLine => ({ ...line, source: "bot", handNumber: null })) : [];
      return { seat: null, problems: [...logs, { level: "error", text: `the bot could not be loaded (${kind}): ${(error as Error).message}; it folds this match`, source: "host", handNumber: null, kind }] };
    }
  }

  closed(): void {
    this.openContexts -= 1;
  }
}

/** One hosted seat in one match: its context per copy, and which of its log lines are written. */
class HostedPlayer {
  /** Per copy: the work sent to the context, in order (a decision waits for the messages before it). */
  readonly queues: Promise<unknown>[];
  /** Per copy: how many of the context's log lines are written. */
  readonly written: number[];
  folded = false;

  constructor(
    readonly plan: HostedSeatPlan,
    readonly copies: Array<HostedSeat | null>,
    /** Lines of the host's own (a load failure, a fold across copies), not yet written. */
    readonly notes: HostedLogLine[],
  ) {
    this.queues = copies.map(() => Promise.resolve());
    this.written = copies.map(() => 0);
  }

  failures(): number {
    return this.copies.reduce((sum, seat) => sum + (seat?.failures ?? 0), 0);
  }
}

/** The hosted seats of one match (see the top of this file). Closed at its end, abort or shutdown. */
export class MatchPlayers {
  private readonly byBot: Map<string, HostedPlayer>;
  private writing: Promise<void> = Promise.resolve();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly play: HostedPlay,
    players: HostedPlayer[],
    private readonly options: { duplicate: boolean; matchId: () => string | null },
  ) {
    this.byBot = new Map(players.map((p) => [p.plan.botId, p]));
  }

  has(botId: string): boolean {
    return this.byBot.has(botId);
  }

  /** A protocol message for a hosted seat: to the copy whose hand it is about (every copy for match-wide ones). */
  notify(botId: string, message: ServerMessage): void {
    const player = this.byBot.get(botId);
    if (!player || this.closing) return;
    for (const copy of this.copiesFor(player, message)) {
      const seat = player.copies[copy];
      if (seat) player.queues[copy] = player.queues[copy].then(() => seat.notify(message as never));
    }
  }

  /** An action request for a hosted seat, within `budgetMs` of sandbox time. Never rejects. */
  async decide(botId: string, request: ActionRequestMessage, budgetMs: number, nowMs: number): Promise<HostedDecision> {
    const player = this.byBot.get(botId)!;
    const copy = this.copiesFor(player, request)[0];
    const seat = player.copies[copy];
    if (!seat || player.folded || this.closing) {
      this.play.onDecision("disabled", 0);
      return { action: { action: "fold" }, ok: false, ms: 0 };
    }
    const decided = player.queues[copy].then(() => seat.decide(request as never, { budgetMs, nowMs }));
    player.queues[copy] = decided;
    const decision = await decided;
    this.play.onDecision(decision.ok ? "ok" : decision.kind, decision.ms);
    this.foldAfterRepeatedFailures(player, request.handNumber);
    return { action: decision.action, ok: decision.ok, ms: decision.ms };
  }

  /** After each hand: the lines it produced are written (nothing when there are none). */
  handFinished(): void {
    this.writePending();
  }

  /** Closes every context and writes the last lines. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const seats = [...this.byBot.values()].flatMap((p) => p.copies.map((seat, copy) => ({ seat, queue: p.queues[copy] })));
      await Promise.all(
        seats.map(async ({ seat, queue }) => {
          if (!seat) return;
          await queue.catch(() => undefined);
          await seat.close();
          this.play.closed();
        }),
      );
      this.writePending();
      await this.writing;
    })();
    return this.closing;
  }

  /** The failure limit counts a match's failures across both copies of a duplicate match. */
  private foldAfterRepeatedFailures(player: HostedPlayer, handNumber: number): void {
    if (player.folded || player.copies.length < 2) {
      player.folded ||= player.copies.some((seat) => seat?.disabled);
      return;
    }
    const failures = player.failures();
    if (failures < this.play.sandbox.limits.failuresPerMatch) return;
    player.folded = true;
    for (const seat of player.copies) if (seat) seat.disabled = true;
    player.notes.push({ level: "error", text: `${failures} failures in this match (both copies): the bot is folded for the rest of it`, source: "host", handNumber, kind: "disabled" });
  }

  private copiesFor(player: HostedPlayer, message: ServerMessage): number[] {
    const handNumber = (message as { handNumber?: unknown }).handNumber;
    if (player.copies.length === 1) return [0];
    if (typeof handNumber !== "number") return player.copies.map((_, copy) => copy);
    return [handNumber % 2 === 1 ? 0 : 1];
  }

  private writePending(): void {
    const matchId = this.options.matchId();
    if (matchId === null) return;
    const rows: HostedLogRow[] = [];
    const createdAt = this.play.timestamp();
    for (const player of this.byBot.values()) {
      const row = (line: HostedLogLine): HostedLogRow => ({
        botId: player.plan.botId,
        matchId,
        version: player.plan.code.version,
        handNumber: line.handNumber,
        kind: line.source === "bot" ? "log" : line.kind && line.kind !== "disabled" ? "failure" : "host",
        failure: line.kind ?? null,
        level: line.level,
        message: line.text,
        createdAt,
      });
      rows.push(...player.notes.splice(0).map(row));
      player.copies.forEach((seat, copy) => {
        if (!seat) return;
        const lines = seat.logs(player.written[copy]);
        rows.push(...lines.map(row));
        player.written[copy] += lines.length;
      });
    }
    if (rows.length === 0) return;
    this.writing = this.writing.then(() => this.play.writeLogs(rows));
  }
}
