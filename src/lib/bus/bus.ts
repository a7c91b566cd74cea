/**
 * The one seam between nodes: subjects carrying JSON messages, publish/subscribe and
 * request/reply. In one process it is an in-memory bus; with NATS_URL every node with the same
 * CLUSTER_NAME shares one (see docs/SCALING.md for the subjects). Same code paths either way.
 */
export type Json = Record<string, unknown>;

/** What a handler returns is the reply to a request (ignored for a plain publish). */
export type Handler = (message: Json) => unknown | Promise<unknown>;

export interface Subscription {
  unsubscribe(): void;
}

/** Nobody answered: no node serves that subject (e.g. the table's host is gone). */
export class NoResponderError extends Error {
  constructor(readonly subject: string) {
    super(`no node answers ${subject}`);
  }
}

/** A node serves the subject but did not reply in time: the request may or may not have been applied. */
export class BusTimeoutError extends Error {
  constructor(readonly subject: string) {
    super(`no reply on ${subject} in time`);
  }
}

export interface Bus {
  /** "local" (one process) or "nats". */
  readonly kind: "local" | "nats";
  /** False while cut off from the other nodes (a NATS outage): no peer can be reached then. */
  readonly reachable: boolean;
  publish(subject: string, message: Json): void;
  subscribe(subject: string, handler: Handler): Subscription;
  /** Rejects with NoResponderError when nobody subscribes, BusTimeoutError when no reply comes in time. */
  request(subject: string, message: Json, timeoutMs?: number): Promise<Json>;
  close(): Promise<void>;
}

export const REQUEST_TIMEOUT_MS = 5_000;
