/**
 * What the nodes of a cluster share to work as one service: each node's lease, the roles one node
 * holds at a time, which node holds each remote bot's socket, the rate budgets every node draws
 * on, and the Idempotency-Keys any node may replay. Re-exported by schema.ts, so drizzle and every
 * query see one schema.
 */
import { bigint, boolean, doublePrecision, index, integer, pgSequence, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const instant = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Where every lease epoch comes from. A takeover deletes the expired row, so an epoch counted per
 * row (1, then + 1) would start again at 1 when the HOST_ID restarts, and a paused process of it
 * still holding (host_id, 1) would pass the fence again on waking. Epochs from one sequence only
 * grow, across rows, restarts and takeovers.
 */
export const leaseEpochs = pgSequence("node_lease_epochs");

/**
 * Each live node's lease. A node renews its row every 2 s (expires_at = now + 6 s); a node whose
 * lease has expired is dead to the others, who take its tables over. `epoch` (from
 * node_lease_epochs) grows with every acquisition: writes about tables carry the writer's
 * (host_id, epoch) and land only while that row still exists (fencing: a paused node whose lease
 * was taken writes nothing).
 */
export const nodeLeases = pgTable("node_leases", {
  hostId: text("host_id").primaryKey(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  expiresAt: instant("expires_at").notNull(),
});

/**
 * Token buckets shared by every node (register and login per client address): one budget for the
 * whole cluster, not one per process. `tokens` as of `at_ms` (the service clock's milliseconds).
 */
export const rateBuckets = pgTable("rate_buckets", {
  key: text("key").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  atMs: bigint("at_ms", { mode: "number" }).notNull(),
  /** Whether the latest take found a token (the upsert's RETURNING sees only the new row). */
  lastTakeAllowed: boolean("last_take_allowed").notNull(),
});

/**
 * Idempotency-Key (Stripe's semantics): the first answer to a developer's keyed POST, replayed for
 * the same key and request within 24 h. `status` null: the first request is still being answered.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    developerId: text("developer_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    status: integer("status"),
    body: text("body"),
    createdAt: instant("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.developerId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/**
 * Which node holds each remote bot's socket: written when a bot connects and removed when it
 * disconnects; a row of a node whose lease expired is stale (its sockets died with it).
 */
export const botPresence = pgTable("bot_presence", {
  botId: text("bot_id").primaryKey(),
  hostId: text("host_id").notNull(),
  since: instant("since").notNull(),
  /** How the bot is connected: `socket` (the WebSocket protocol), `agent` (an LLM agent through /mcp) or `acpc` (an ACPC player on its TCP port). */
  via: text("via").notNull().default("socket"),
});

/**
 * Cluster-wide roles one node holds at a time (the ladder's matchmaker), leased like a node:
 * renewed every 2 s to now() + 6 s; another node takes the role once the lease expires.
 */
export const clusterRoles = pgTable("cluster_roles", {
  role: text("role").primaryKey(),
  hostId: text("host_id").notNull(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  expiresAt: instant("expires_at").notNull(),
});
