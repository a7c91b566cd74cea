import { Elysia, t } from "elysia";
import { oneOf } from "../../lib/http";
import type { ClusterNode } from "../cluster/node";

export function healthModule(dbKind: "postgres" | "pglite", cluster: ClusterNode, matchmaker: () => boolean) {
  return new Elysia({ name: "module:health" }).get("/health", () => ({ status: "ok" as const, db: dbKind, ...cluster.health(), matchmaker: matchmaker() }), {
    response: {
      200: t.Object({
        status: t.Literal("ok"),
        db: oneOf(["postgres", "pglite"]),
        node: t.String({ description: "This node's HOST_ID" }),
        cluster: t.String({ description: "CLUSTER_NAME: the namespace of every subject between nodes" }),
        role: oneOf(["single", "member"] as const, { description: "single: one process (no NATS_URL); member: one node of a cluster" }),
        matchmaker: t.Boolean({ description: "This node pairs the ladder's entries now (exactly one node of the cluster does)" }),
        peers: t.Array(t.Object({ node: t.String(), tables: t.Integer({ description: "Tables it hosts" }) }), { description: "Other live nodes (heard from in the last 6 s)" }),
      }),
    },
    detail: { tags: ["health"], summary: "Liveness, the database in use, this node and its live peers" },
  });
}
