import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * Every metric of one app, on a registry of its own (tests run several apps in one process, so
 * never prom-client's global registry). Every series carries `node` = HOST_ID. Label values come
 * from small fixed sets (a method, a route template, a status, a reason code): never a developer,
 * bot, table or match id, a key or a card — those would make the series unbounded and leak.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests: Counter<"method" | "route" | "status">;
  readonly httpDuration: Histogram<"method" | "route" | "status">;
  readonly wsConnections: Gauge<"kind">;
  readonly wsMessagesReceived: Counter<"kind">;
  readonly wsMessagesSent: Counter<"kind">;
  readonly botActions: Counter<"outcome">;
  readonly relayTurnaround: Histogram;
  readonly actionFallbacks: Counter<"reason">;
  readonly handsDealt: Counter;
  readonly matchesStarted: Counter;
  readonly matchesFinished: Counter;
  readonly matchesResumed: Counter;
  readonly ledgerOperations: Counter<"type" | "result">;
  readonly ledgerDuration: Histogram<"type">;
  readonly ledgerRefusals: Counter<"type" | "reason">;
  readonly dbRetries: Counter<"cause">;
  readonly tablesTakenOver: Counter;
  readonly leaseLost: Counter;
  readonly ladderPairings: Counter<"format">;
  readonly hostedDecisions: Counter<"outcome">;
  readonly hostedDecisionTime: Histogram;

  constructor(hostId: string) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ node: hostId });
    // Process memory, CPU, file descriptors and event-loop lag (perf_hooks.monitorEventLoopDelay).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    // Gauges prom-client names *_total, against the conventions (promtool check metrics flags them).
    for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) this.registry.removeSingleMetric(name);

    this.httpRequests = new Counter({ name: "poker_http_requests_total", help: "HTTP requests answered, by method, route template and status", labelNames: ["method", "route", "status"], registers });
    this.httpDuration = new Histogram({
      name: "poker_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route template and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.wsConnections = new Gauge({ name: "poker_websocket_connections", help: "Open WebSocket connections on this node (bot or spectator)", labelNames: ["kind"], registers });
    this.wsMessagesReceived = new Counter({ name: "poker_websocket_messages_received_total", help: "WebSocket messages received from clients", labelNames: ["kind"], registers });
    this.wsMessagesSent = new Counter({ name: "poker_websocket_messages_sent_total", help: "WebSocket messages sent (bot: per message to a bot; spectator: per table broadcast)", labelNames: ["kind"], registers });
    this.botActions = new Counter({ name: "poker_bot_actions_total", help: "Bot answers to action requests: accepted, illegal, or stale (late, duplicate, unknown request)", labelNames: ["outcome"], registers });
    this.relayTurnaround = new Histogram({
      name: "poker_relay_turnaround_seconds",
      help: "Server-side relay latency: a bot's legal action arriving to its table's next action request leaving (what bench:relay prints)",
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
    this.actionFallbacks = new Counter({ name: "poker_action_fallbacks_total", help: "Action requests answered for the bot (check, else fold): it timed out or its socket closed", labelNames: ["reason"], registers });
    this.handsDealt = new Counter({ name: "poker_hands_dealt_total", help: "Hands played to the end on tables this node hosts", registers });
    this.matchesStarted = new Counter({ name: "poker_matches_started_total", help: "Matches started on this node", registers });
    this.matchesFinished = new Counter({ name: "poker_matches_finished_total", help: "Matches whose end was recorded by this node", registers });
    this.matchesResumed = new Counter({ name: "poker_matches_resumed_total", help: "Running matches this node resumed from their rows (its own restart or a takeover)", registers });
    this.ledgerOperations = new Counter({ name: "poker_ledger_operations_total", help: "Ledger operations by type (faucet, buy_in, cashout) and result (ok, refused, error)", labelNames: ["type", "result"], registers });
    this.ledgerDuration = new Histogram({
      name: "poker_ledger_operation_duration_seconds",
      help: "Ledger operation latency, queueing behind the developer's earlier operations included",
      labelNames: ["type"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.ledgerRefusals = new Counter({ name: "poker_ledger_refusals_total", help: "Ledger operations refused, by type and reason (the error code)", labelNames: ["type", "reason"], registers });
    this.dbRetries = new Counter({ name: "poker_db_retries_total", help: "Database work retried after a transient failure (per process): conflict or connection", labelNames: ["cause"], registers });
    this.tablesTakenOver = new Counter({ name: "poker_tables_taken_over_total", help: "Tables this node claimed from dead or departed nodes", registers });
    this.leaseLost = new Counter({ name: "poker_lease_lost_total", help: "Times this node's lease was taken over while it lived (paused or cut off)", registers });
    this.ladderPairings = new Counter({ name: "poker_ladder_pairings_total", help: "Ladder tables the matchmaker filled on this node, by format", labelNames: ["format"], registers });
    this.hostedDecisions = new Counter({
      name: "poker_hosted_decisions_total",
      help: "Hosted bots' decisions by outcome: ok, or why the fallback was sent (timeout, memory, stack, exception, illegal, crashed, disabled)",
      labelNames: ["outcome"],
      registers,
    });
    this.hostedDecisionTime = new Histogram({
      name: "poker_hosted_decision_seconds",
      help: "Sandbox time of a hosted bot's decision (its own run time, not queueing behind other bots)",
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5],
      registers,
    });
  }

  /** A gauge read at scrape time (tables by status, NATS state, lease standing): nothing to keep up to date. */
  sampled<L extends string>(name: string, help: string, labelNames: L[], read: () => Iterable<[Partial<Record<L, string>>, number]>): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.set(labels as never, value);
      },
    });
  }

  /** A counter read at scrape time from a running total kept elsewhere (it only grows). */
  sampledCounter(name: string, help: string, read: () => number): void {
    let counted = 0;
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        const total = read();
        if (total > counted) this.inc(total - counted);
        counted = Math.max(counted, total);
      },
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
