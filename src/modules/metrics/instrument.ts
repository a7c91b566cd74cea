import type { Bus } from "../../lib/bus/bus";
import { AppError } from "../../lib/errors";
import { observeRetries } from "../../db/retry";
import type { Accounts } from "../credits/service";
import { LADDER_FORMATS } from "../../db/schema";
import type { Matchmaker, RoundReport } from "../ladder/matchmaker";
import type { MatchHost } from "../match-host/host";
import type { BotGateway } from "../protocol/gateway";
import type { Spectators } from "../protocol/spectators";
import type { Metrics } from "./service";
import type { HostedPlay } from "../hosted/players";

/**
 * Feeds the metrics from the services' public seams, wrapped here from outside so the features
 * themselves carry no metrics code (and merge freely): the gateway's sockets and answers, the
 * hand journal, the host's adoption, the ledger's three operations, the ladder's pairing rounds. Each wrapper calls the
 * original first-class method and only counts what it saw.
 */
/** The services whose public methods are counted. */
export interface Instrumented {
  gateway: BotGateway;
  spectators: Spectators;
  host: MatchHost;
  accounts: Accounts;
  matchmaker: Matchmaker;
  hostedPlay: HostedPlay;
}

export function instrument(metrics: Metrics, services: Instrumented, bus: Pick<Bus, "reachable"> | undefined): void {
  const { gateway, spectators, host, accounts } = services;

  // Bot sockets: one per bot on this node (a reconnect replaces the old socket, counted by disconnect).
  const botSockets = new Set<string>();
  metrics.wsConnections.set({ kind: "bot" }, 0);
  metrics.wsConnections.set({ kind: "spectator" }, 0);
  wrap(gateway, "connect", (_botId, socket) => {
    botSockets.add(socket.id);
    metrics.wsConnections.set({ kind: "bot" }, botSockets.size);
  });
  wrap(gateway, "disconnect", (socket) => {
    botSockets.delete(socket.id);
    metrics.wsConnections.set({ kind: "bot" }, botSockets.size);
  });
  wrap(gateway, "receive", () => metrics.wsMessagesReceived.inc({ kind: "bot" }));
  wrap(gateway, "send", () => metrics.wsMessagesSent.inc({ kind: "bot" }));
  wrap(gateway, "deliverLocally", () => metrics.wsMessagesSent.inc({ kind: "bot" }));
  wrap(gateway, "answer", (_botId, _message, reply) => {
    const code = (reply as { code?: string } | null)?.code;
    metrics.botActions.inc({ outcome: reply === null ? "accepted" : code === "ILLEGAL_ACTION" ? "illegal" : "stale" });
  });
  gateway.turnaround.observe = (ms) => metrics.relayTurnaround.observe(ms / 1000);
  const requestAction = gateway.requestAction.bind(gateway);
  gateway.requestAction = (botId, ...rest) =>
    requestAction(botId, ...rest).then((answer) => {
      // No answer: the deadline passed with the socket still open, or the socket closed first.
      if (answer === null) metrics.actionFallbacks.inc({ reason: gateway.isConnected(botId) ? "timeout" : "disconnected" });
      return answer;
    });

  wrap(spectators, "add", () => metrics.wsConnections.inc({ kind: "spectator" }));
  const removeSpectator = spectators.remove.bind(spectators);
  spectators.remove = (tableId, socket) => {
    const before = spectators.watchingHere(tableId);
    removeSpectator(tableId, socket);
    if (spectators.watchingHere(tableId) < before) metrics.wsConnections.dec({ kind: "spectator" });
  };
  wrap(spectators, "deliver", () => metrics.wsMessagesSent.inc({ kind: "spectator" }));

  const { journal } = host;
  wrap(journal, "started", () => metrics.matchesStarted.inc());
  wrap(journal, "record", (_tableId, _matchId, hand) => {
    if (hand) metrics.handsDealt.inc();
  });
  wrap(journal, "finish", () => metrics.matchesFinished.inc());
  wrap(host, "adopt", (rows) => metrics.matchesResumed.inc(rows.filter((row) => row.status === "running").length));
  metrics.sampled("poker_tables", "Tables this node hosts, by status", ["status"], () => {
    const counts = new Map<string, number>([["waiting", 0], ["running", 0]]);
    for (const status of host.hostedStatuses()) counts.set(status, (counts.get(status) ?? 0) + 1);
    return [...counts].map(([status, count]) => [{ status }, count]);
  });

  timeLedger(metrics, accounts, "claimFaucet", "faucet");
  timeLedger(metrics, accounts, "buyIn", "buy_in");
  timeLedger(metrics, accounts, "cashout", "cashout");

  ladderMetrics(metrics, services.matchmaker);

  // Hosted bots: no bot id in any label (the series stay few whatever the number of bots).
  const { hostedPlay } = services;
  for (const outcome of ["ok", "timeout", "memory", "exception", "illegal", "disabled"]) metrics.hostedDecisions.inc({ outcome }, 0);
  wrap(hostedPlay, "onDecision", (outcome, ms) => {
    metrics.hostedDecisions.inc({ outcome });
    if (outcome !== "disabled") metrics.hostedDecisionTime.observe(ms / 1000);
  });
  metrics.sampled("poker_hosted_contexts", "Sandbox contexts open for hosted seats of matches on this node", [], () => [[{}, hostedPlay.openContexts]]);
  const { sandbox } = hostedPlay;
  metrics.sampledCounter("poker_hosted_preemptions_total", "Hosted bots' calls stopped because they held up another match's bot on a shared worker (each seat then moved to a worker of its own)", () => sandbox.counts().preemptions);
  metrics.sampledCounter("poker_hosted_worker_replacements_total", "Sandbox worker threads replaced (a worker that hung past a call's hard limit, or crashed)", () => sandbox.counts().workerReplacements);
  metrics.sampledCounter("poker_hosted_worker_recycles_total", "Sandbox worker threads ended because their memory had grown and they held no bot (the memory returned)", () => sandbox.counts().workerRecycles);
  metrics.sampled("poker_hosted_sandbox_memory_bytes", "The sandbox workers' WebAssembly memory on this node (bounded by SANDBOX_MEMORY_MIB)", [], () => [[{}, sandbox.memoryInUse().totalBytes]]);
  metrics.sampled("poker_hosted_sandbox_heavy_memory_bytes", "The part of it hosted bots grew past their first 8 MiB (bounded by half of SANDBOX_MEMORY_MIB)", [], () => [[{}, sandbox.memoryInUse().heavyBytes]]);

  observeRetries((cause) => metrics.dbRetries.inc({ cause }));
  metrics.sampled("poker_nats_connected", "1 while this node reaches the NATS server (a single process without NATS reports 1)", [], () => [[{}, (bus?.reachable ?? true) ? 1 : 0]]);
}

type Method<T, K extends keyof T> = T[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;

/**
 * Replaces `target[key]` with a call to the original followed by `after(...args, result)`. For
 * async methods `result` is the promise; `after` must not throw (it only counts).
 */
function wrap<T extends object, K extends keyof T>(target: T, key: K, after: (...args: [...Parameters<Method<T, K>>, ReturnType<Method<T, K>>]) => void): void {
  const original = (target[key] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<K, unknown>)[key] = (...args: unknown[]) => {
    const result = original(...args);
    (after as (...all: unknown[]) => void)(...args, result);
    return result;
  };
}

type LedgerOperation = "claimFaucet" | "buyIn" | "cashout";

/** Times one ledger operation, and sorts its ending: ok, refused (a 4xx/503 AppError: its code is the reason), or error. */
function timeLedger(metrics: Metrics, accounts: Instrumented["accounts"], key: LedgerOperation, type: string): void {
  const original = (accounts[key] as (...args: unknown[]) => Promise<unknown>).bind(accounts);
  (accounts as unknown as Record<LedgerOperation, unknown>)[key] = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      const result = await original(...args);
      metrics.ledgerOperations.inc({ type, result: "ok" });
      return result;
    } catch (error) {
      const refused = error instanceof AppError && error.status < 500 ? error.code : error instanceof AppError && error.status === 503 ? error.code : null;
      metrics.ledgerOperations.inc({ type, result: refused ? "refused" : "error" });
      if (refused) metrics.ledgerRefusals.inc({ type, reason: refused });
      throw error;
    } finally {
      metrics.ledgerDuration.observe({ type }, (performance.now() - started) / 1000);
    }
  };
}

/**
 * The ladder as its matchmaker last saw it (only the node holding the role reports entries and
 * the queue; every node reports whether it holds the role). Labels: format, status, reason (the
 * three pause reasons): a few fixed values each.
 */
function ladderMetrics(metrics: Metrics, matchmaker: Matchmaker): void {
  let last: RoundReport | null = null;
  for (const format of LADDER_FORMATS) metrics.ladderPairings.inc({ format }, 0);
  matchmaker.observe = (report) => {
    last = report;
  };
  matchmaker.tableFilled = (format) => metrics.ladderPairings.inc({ format });
  const seen = () => (matchmaker.isMatchmaker() && last ? last.entries : null);
  metrics.sampled("poker_ladder_entries", "Ladder entries by format and status (a paused one by reason), as the matchmaker's last round read them (reported by the matchmaker's node)", ["format", "status", "reason"], () => {
    const entries = seen();
    if (!entries) return [];
    const counts = new Map<string, [Partial<Record<"format" | "status" | "reason", string>>, number]>();
    for (const format of LADDER_FORMATS) counts.set(`${format}|active|`, [{ format, status: "active" }, 0]);
    for (const e of entries) {
      const key = `${e.format}|${e.status}|${e.reason ?? ""}`;
      const labels = e.reason ? { format: e.format, status: e.status, reason: e.reason } : { format: e.format, status: e.status };
      counts.set(key, [labels, (counts.get(key)?.[1] ?? 0) + 1]);
    }
    return counts.values();
  });
  metrics.sampled("poker_ladder_available", "Ladder bots active and free yet left unpaired by the matchmaker's last round, by format: the queue (reported by the matchmaker's node)", ["format"], () => {
    const entries = seen();
    if (!entries) return [];
    return LADDER_FORMATS.map((format) => [{ format }, entries.filter((e) => e.format === format && e.waiting).length]);
  });
  metrics.sampled("poker_ladder_matchmaker", "1 on the node holding the ladder's matchmaker role (one in the cluster)", [], () => [[{}, matchmaker.isMatchmaker() ? 1 : 0]]);
}
