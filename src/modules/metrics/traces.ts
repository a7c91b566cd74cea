import type { SpanAttributes, Tracing } from "../../lib/tracing";
import type { Accounts } from "../credits/service";
import type { LedgerRefs } from "../credits/ledger";
import type { MatchHost } from "../match-host/host";

/**
 * Which operations are spans, wrapped from outside as instrument.ts wraps them for the metrics
 * (the features carry no tracing code): each ledger operation (faucet, buy_in, cashout), a
 * match's start and end (the journal's writes of them) and the resumption of adopted tables.
 * Nothing is wrapped with tracing off. Attributes: ids, amounts, counts — never a key, token,
 * the deck's secret or a card.
 */
export function traceServices(tracing: Tracing, services: { accounts: Accounts; host: MatchHost }): void {
  if (!tracing.enabled) return;
  const { accounts, host } = services;
  const refsOf = (refs: LedgerRefs | undefined): SpanAttributes => ({
    ...(refs?.tableId ? { "poker.table_id": refs.tableId } : {}),
    ...(refs?.botId ? { "poker.bot_id": refs.botId } : {}),
  });
  traced(tracing, accounts, "claimFaucet", (developerId) => ["ledger faucet", { "ledger.operation": "faucet", "poker.developer_id": developerId }]);
  traced(tracing, accounts, "buyIn", (developerId, amount, refs) => ["ledger buy_in", { "ledger.operation": "buy_in", "poker.developer_id": developerId, "ledger.amount": amount, ...refsOf(refs) }]);
  traced(tracing, accounts, "cashout", (developerId, _seatId, chips, refs) => ["ledger cashout", { "ledger.operation": "cashout", "poker.developer_id": developerId, "ledger.amount": chips, ...refsOf(refs) }]);

  const { journal } = host;
  traced(tracing, journal, "started", (table) => [
    "match start",
    { "poker.table_id": table.tableId, "poker.match_id": table.matchId ?? "", "poker.ladder": table.ladder ?? "none", "poker.seats": table.seats.size, "poker.max_hands": table.config.maxHands },
  ]);
  traced(tracing, journal, "finish", (outcome) => ["match end", { "poker.table_id": outcome.tableId, "poker.match_id": outcome.matchId, "poker.hands_played": outcome.handsPlayed, "poker.players": outcome.players.length }]);
  const adopt = host.adopt.bind(host);
  host.adopt = (rows) =>
    rows.length === 0
      ? adopt(rows)
      : tracing.span("match resume", { "poker.tables_adopted": rows.length, "poker.matches_resumed": rows.filter((row) => row.status === "running").length }, () => adopt(rows));
}

type AsyncMethod<T, K extends keyof T> = T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never;

/** Replaces `target[key]` (an async method) with the same call inside a span named and described by `describe(...args)`. */
function traced<T extends object, K extends keyof T>(tracing: Tracing, target: T, key: K, describe: (...args: Parameters<AsyncMethod<T, K>>) => [string, SpanAttributes]): void {
  const original = (target[key] as (...args: unknown[]) => Promise<unknown>).bind(target);
  (target as Record<K, unknown>)[key] = (...args: unknown[]) => {
    const [name, attributes] = (describe as (...all: unknown[]) => [string, SpanAttributes])(...args);
    return tracing.span(name, attributes, () => original(...args));
  };
}
