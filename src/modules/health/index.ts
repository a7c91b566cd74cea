import { Elysia, t } from "elysia";
import type { DatabaseReachability } from "../../db/probe";
import { oneOf } from "../../lib/http";
import type { LeaseStanding } from "../cluster/lease";
import type { ClusterNode } from "../cluster/node";

export interface HealthSources {
  dbKind: "postgres" | "pglite";
  cluster: ClusterNode;
  matchmaker: () => boolean;
  /** The database probe's last word (src/db/probe.ts): no query per /health. */
  database: DatabaseReachability;
  /** Whether this node's lease stands (LeaseKeeper.standing): its tables deal only then. */
  leaseStanding: LeaseStanding;
}

const NODE_FIELDS = {
  db: oneOf(["postgres", "pglite"]),
  node: t.String({ description: "This node's HOST_ID" }),
  cluster: t.String({ description: "CLUSTER_NAME: the namespace of every subject between nodes" }),
  role: oneOf(["single", "member"] as const, { description: "single: one process (no NATS_URL); member: one node of a cluster" }),
  matchmaker: t.Boolean({ description: "This node pairs the ladder's entries now (exactly one node of the cluster does)" }),
  peers: t.Array(t.Object({ node: t.String(), tables: t.Integer({ description: "Tables it hosts" }) }), { description: "Other live nodes (heard from in the last 6 s)" }),
  database: t.Object(
    {
      reachable: t.Boolean({ description: "The probe (select 1 every second on its own connection) was answered within DATABASE_PROBE_TIMEOUT_MS" }),
      lastAnswerMs: t.Union([t.Integer(), t.Null()], { description: "Milliseconds since the database last answered the probe (null: PGlite, in this process, or no answer yet)" }),
    },
    { description: "This node's way to its database" },
  ),
  lease: t.Object({ standing: t.Boolean({ description: "This node's lease provably stands (its tables deal only then)" }) }),
};

const HEALTHY = t.Object({ status: t.Literal("ok"), ...NODE_FIELDS });
const UNHEALTHY = t.Object({
  status: t.Literal("unavailable"),
  reasons: t.Array(t.String(), { description: "Why this node should get no traffic now" }),
  ...NODE_FIELDS,
  error: t.Object({ code: t.Literal("UNHEALTHY"), message: t.String(), details: t.Object({ reasons: t.Array(t.String()) }) }),
});

const DESCRIPTION =
  "Readiness: 200 while this node can serve, 503 (status unavailable, with its reasons and the error shape) while it cannot reach its database (a probe on its own connection, unanswered for DATABASE_PROBE_TIMEOUT_MS, default 3 s) or its lease does not stand (renewals overdue: its tables are paused, and a peer takes them over once the lease expires). A load balancer sends traffic only to nodes answering 200. Cheap: the probe runs in the background, /health reads its last answer.";

/**
 * `/health` and `/health/ready` (the same answer: a load balancer's readiness check), and
 * `/health/live` (the process answers at all: for a supervisor deciding on a restart, which a
 * database outage does not call for).
 */
export function healthModule(sources: HealthSources) {
  const readiness = ({ set }: { set: { status?: number | string } }) => {
    const reachable = sources.database.reachable();
    const standing = sources.leaseStanding();
    const fields = {
      db: sources.dbKind,
      ...sources.cluster.health(),
      matchmaker: sources.matchmaker(),
      database: { reachable, lastAnswerMs: sources.database.sinceLastAnswerMs() },
      lease: { standing },
    };
    const reasons = [
      ...(reachable ? [] : ["the database does not answer this node"]),
      ...(standing ? [] : ["this node's lease does not stand (renewals overdue)"]),
    ];
    if (reasons.length === 0) return { status: "ok" as const, ...fields };
    set.status = 503;
    return {
      status: "unavailable" as const,
      reasons,
      ...fields,
      error: { code: "UNHEALTHY" as const, message: `This node should get no traffic now: ${reasons.join("; ")}`, details: { reasons } },
    };
  };
  const documented = (summary: string) => ({ response: { 200: HEALTHY, 503: UNHEALTHY }, detail: { tags: ["health"], summary, description: DESCRIPTION } });
  return new Elysia({ name: "module:health" })
    .get("/health", readiness, documented("Readiness: the database in use and reachable, this node's lease, its live peers"))
    .get("/health/ready", readiness, documented("Readiness for a load balancer (the same answer as /health)"))
    .get("/health/live", () => ({ status: "ok" as const }), {
      response: { 200: t.Object({ status: t.Literal("ok") }) },
      detail: { tags: ["health"], summary: "Liveness: the process answers (200 even while its database is unreachable: restarting would not help)" },
    });
}
