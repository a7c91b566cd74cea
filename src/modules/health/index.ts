import { Elysia, t } from "elysia";

export function healthModule(dbKind: "postgres" | "pglite") {
  return new Elysia({ name: "module:health" }).get("/health", () => ({ status: "ok" as const, db: dbKind }), {
    response: { 200: t.Object({ status: t.Literal("ok"), db: t.UnionEnum(["postgres", "pglite"]) }) },
    detail: { tags: ["health"], summary: "Liveness and the database in use" },
  });
}
