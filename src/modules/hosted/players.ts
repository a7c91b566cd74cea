/**
 * Hosted bots at a table, for one match: each hosted seat gets a fresh sandbox context with its
 * pinned version's code, hears every message a remote bot would, and is asked for actions (the
 * seat around it, its clock, legality, fallback and failure rule, is src/modules/seats'). Its log lines and failures become hosted_logs rows,
 * written after each hand that produced any and at the match's end.
 *
 * Everything a context can observe is its own match's: its failures and its log budget are its own
 * (sandbox/seat.ts), its clock is a match clock that moves per message it receives (match-clock.ts),
 * and it hears only its own table's messages. A duplicate match is two matches at two twin tables
 * (docs/FAIRNESS.md): each copy opens its own contexts here, so the two copies of a deal are two
 * separate worlds for every bot.
 */
import type { ActionRequestMessage, ServerMessage } from "@poker-bots/protocol";
import type { Db } from "../../db";
import { invariant } from "../../lib/assert";
import { appendHostedLogs, type CodeVersion, type HostedLogRow } from "./code-store";
import type { SandboxDecision, SandboxDecisions } from "../seats/hosted";
import { MatchClock, onMatchClock } from "./match-clock";
import { SandboxOpenError, type FailureKind, type HostedLogLine, type HostedSeat, type Sandbox } from "./sandbox";

/** A decision's outcome as counted (metrics): its answer was used, or why not. */
export type DecisionOutcome = "ok" | FailureKind;

/** A hosted seat of a match: its bot and the version the match pinned. */
export interface HostedSeatPlan {
  botId: string;
  code: CodeVersion;
}

/** Which match a MatchPlayers serves. */
export interface HostedMatchPlan {
  /** The match's table: its contexts hear only this table's messages. */
  tableId: string;
  /** The match's id (null until it has one: log rows wait for it). */
  matchId: () => string | null;
  /**
   * The sandbox worker group (SandboxPool.pick): a match's seats share one worker; the two copies of
   * a duplicate pair share one too, so neither copy's long call is ever preempted for the other's.
   * Default: a group of this match alone.
   */
  group?: string;
}

/** What a match's hosted seats report to (the node's HostedPlay; `cli play` keeps its own, see cli/hosted.ts). */
export interface MatchPlayersHost {
  /** Hears every hosted decision (metrics); must not throw. */
  onDecision(outcome: DecisionOutcome, ms: number): void;
  /** A context of the match was closed. */
  closed(): void;
  timestamp(): Date;
  /** Appends log rows; never rejects. */
  writeLogs(rows: HostedLogRow[]): Promise<void>;
}

/** The node's hosted play: opens matches' hosted seats in its one sandbox and counts what they do. */
export class HostedPlay implements MatchPlayersHost {
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
   * Opens a fresh context per hosted seat with its pinned code. A bot whose code cannot even load (a
   * worker lost at that moment) folds all match, and its log says why. The match clock starts with
   * MatchPlayers.start.
   */
  async openMatch(seats: HostedSeatPlan[], plan: HostedMatchPlan): Promise<MatchPlayers> {
    // One worker for the match's contexts: a bot that runs its whole budget stalls only this match.
    const group = plan.group ?? `match-${++this.matchesOpened}`;
    const players = await Promise.all(
      seats.map(async (seatPlan) => {
        const { seat, problems } = await this.openContext(seatPlan, group);
        return new HostedPlayer(seatPlan, seat, problems);
      }),
    );
    return new MatchPlayers(this, players, plan);
  }

  /** Appends a match's log rows (the match host's writes are its own; these never block a hand). */
  writeLogs(rows: HostedLogRow[]): Promise<void> {
    return appendHostedLogs(this.db, rows).catch((error) => this.log(`writing ${rows.length} hosted log rows failed`, error));
  }

  timestamp(): Date {
    return new Date(this.now());
  }

  /** A context of its own: its own log budget (the seat's), failures and memory. */
  private async openContext(plan: HostedSeatPlan, group: string, attempt = 1): Promise<{ seat: HostedSeat | null; problems: HostedLogLine[] }> {
    try {
      const seat = await this.sandbox.open(plan.code.bundled, { botId: plan.botId, group });
      this.openContexts += 1;
      return { seat, problems: [] };
    } catch (error) {
      const kind: FailureKind = error instanceof SandboxOpenError ? error.kind : "crashed";
      // Its code loaded at upload: a load that times out or loses its worker is most likely the node's
      // doing (a worker still cold, a busy machine just after a restart), so it gets a second try.
      if (attempt === 1 && (kind === "timeout" || kind === "crashed")) return this.openContext(plan, group, 2);
      this.log(`hosted bot ${plan.botId} v${plan.code.version} could not be loaded (${kind}): it folds this match`, error);
      const logs = error instanceof SandboxOpenError ? error.logs.map((line): HostedLogLine => ({ ...line, source: "bot", handNumber: null })) : [];
      return { seat: null, problems: [...logs, { level: "error", text: `the bot could not be loaded (${kind}): ${(error as Error).message}; it folds this match`, source: "host", handNumber: null, kind }] };
    }
  }

  closed(): void {
    this.openContexts -= 1;
  }
}

/** One hosted seat in one match: its context, its clock, and which of its log lines are written. */
export class HostedPlayer {
  /** The work sent to the context, in order (a decision waits for the messages before it). */
  queue: Promise<unknown> = Promise.resolve();
  /** How many of the context's log lines are written. */
  written = 0;
  /** Set by MatchPlayers.start: the time the context reads. */
  clock: MatchClock | null = null;

  constructor(
    readonly plan: HostedSeatPlan,
    /** null: its code could not be loaded; it folds all match. */
    readonly seat: HostedSeat | null,
    /** Lines of the host's own (a load failure), not yet written. */
    readonly notes: HostedLogLine[],
  ) {}

  /** The context's time for the message it is about to receive. */
  tick(): number {
    invariant(this.clock !== null, "a hosted context hears nothing before its match clock starts");
    return this.clock.next();
  }
}

/** The hosted seats of one match (see the top of this file). Closed at its end, abort or shutdown. */
export class MatchPlayers implements SandboxDecisions {
  private readonly byBot: Map<string, HostedPlayer>;
  private writing: Promise<void> = Promise.resolve();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly play: MatchPlayersHost,
    players: HostedPlayer[],
    readonly plan: HostedMatchPlan,
  ) {
    this.byBot = new Map(players.map((p) => [p.plan.botId, p]));
  }

  has(botId: string): boolean {
    return this.byBot.has(botId);
  }

  /**
   * Starts every context's match clock at `origin` (the match's, shared by a duplicate pair's two
   * copies: drawn once their contexts are all open, before either plays a hand).
   */
  start(origin: number): void {
    for (const player of this.byBot.values()) player.clock = new MatchClock(origin);
  }

  /** A protocol message for a hosted seat, at its context's next match-clock time. */
  notify(botId: string, message: ServerMessage): void {
    const player = this.byBot.get(botId);
    if (!player || this.closing) return;
    this.assertOwnMatch(message);
    const seat = player.seat;
    if (!seat) return;
    const nowMs = player.tick();
    player.queue = player.queue.then(() => seat.notify(message as never, { nowMs }));
  }

  /**
   * An action request for a hosted seat, within `budgetMs` of sandbox time; its deadline on the match
   * clock. Never rejects. A seat that does not run (its code did not load, its failures are exhausted,
   * the match is closing) is not called: it folds for the rest of the match.
   */
  async decide(botId: string, request: ActionRequestMessage, budgetMs: number): Promise<SandboxDecision> {
    const player = this.byBot.get(botId)!;
    this.assertOwnMatch(request);
    const seat = player.seat;
    if (!seat || seat.disabled || this.closing) {
      this.play.onDecision("disabled", 0);
      return { ok: false, ms: 0, timedOut: false, foldedForMatch: true };
    }
    const nowMs = player.tick();
    const decided = player.queue.then(() => seat.decide(onMatchClock(request, nowMs, budgetMs) as never, { budgetMs, nowMs }));
    player.queue = decided;
    const decision = await decided;
    this.play.onDecision(decision.ok ? "ok" : decision.kind, decision.ms);
    if (decision.ok) return { ok: true, action: decision.action, ms: decision.ms };
    return { ok: false, ms: decision.ms, timedOut: decision.kind === "timeout", foldedForMatch: seat.disabled };
  }

  /** After each hand: the lines it produced are written (nothing when there are none). */
  handFinished(): void {
    this.writePending();
  }

  /**
   * Once the last hand is played: every context has handled what it was told (its queue is empty)
   * and every line so far is written. Never rejects (a failed write is the writer's to report).
   */
  async settle(): Promise<void> {
    await Promise.all([...this.byBot.values()].map(({ queue }) => queue.catch(() => undefined)));
    this.writePending();
    await this.writing.catch(() => undefined);
  }

  /** Closes every context and writes the last lines. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all(
        [...this.byBot.values()].map(async ({ seat, queue }) => {
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

  /** A context hears only its own match's messages (a duplicate pair's other copy is another table). */
  private assertOwnMatch(message: ServerMessage): void {
    const { tableId, matchId } = message as { tableId?: string; matchId?: string | null };
    invariant(tableId === this.plan.tableId, `a hosted context of table ${this.plan.tableId} hears only its own table's messages, not ${tableId}'s`);
    const own = this.plan.matchId();
    invariant(matchId === undefined || own === null || matchId === own, `a hosted context of match ${own} hears only its own match's messages`);
  }

  private writePending(): void {
    const matchId = this.plan.matchId();
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
      if (player.seat) {
        const lines = player.seat.logs(player.written);
        rows.push(...lines.map(row));
        player.written += lines.length;
      }
    }
    if (rows.length === 0) return;
    this.writing = this.writing.then(() => this.play.writeLogs(rows));
  }
}
