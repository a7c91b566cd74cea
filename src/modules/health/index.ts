import { Elysia, t } from "elysia";
import { oneOf } from "../../lib/http";

export function healthModule(dbKind: "postgres" | "pglite") {
  return new Elysia({ name: "module:health" }).get("/health", () => ({ status: "ok" as const, db: dbKind }), {
    response: { 200: t.Object({ status: t.Literal("ok"), db: oneOf(["postgres", "pglite"]) }) },
    detail: { tags: ["health"], summary: "Liveness and the database in use" },
  });
}
