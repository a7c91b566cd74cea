import { and, asc, desc, eq, gt, lt, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn, PgSelect, PgTable } from "drizzle-orm/pg-core";
import { t } from "elysia";
import type { Queryable } from "../db";
import { invariant } from "./assert";
import { errors } from "./errors";
import { queryInteger } from "./http";

/**
 * One pagination style for every list, GitHub's: the body stays a bare array; `limit` sets the
 * page size; when more items exist, a `Link: <…>; rel="next"` header names the next page, whose
 * cursor is the last item of this one (keyset, so rows added meanwhile never shift a page).
 */
export const PAGE = { default: 50, max: 500 } as const;

export const PAGING_RULE = `Pages: \`limit\` (default ${PAGE.default}, at most ${PAGE.max}); when more items follow, the \`Link\` header names the next page (\`<…>; rel="next"\`), and the last page has no \`Link\`. Cursors are keyset, so items added meanwhile never shift a page.`;

export function pageLimit(defaultSize: number = PAGE.default, max: number = PAGE.max) {
  return queryInteger("limit", { minimum: 1, maximum: max, default: defaultSize, description: `Items per page: default ${defaultSize}, at most ${max}` });
}

/**
 * The query of a ranked list (the leaderboard, ratings): `limit`, the opaque `after` of its
 * `Link`, and the older `offset` (which shifts as the ranking changes; `after` does not).
 */
export function rankedListQuery(offsetMax: number) {
  return t.Object(
    {
      limit: t.Optional(pageLimit()),
      after: t.Optional(rankCursor.schema("Cursor: continue after this entry (from the `Link` rel=next header)")),
      offset: t.Optional(queryInteger("offset", { minimum: 0, maximum: offsetMax, default: 0, description: "Skip this many entries (`after` is stable while the ranking changes)" })),
    },
    { additionalProperties: false },
  );
}

/** A page of a list and the cursor of the next one (null on the last page): an id, an opaque rank, a hand number. */
export interface Page<T, Cursor = string> {
  items: T[];
  next: Cursor | null;
}

/** Rows read with `limit + 1`: the extra row only says that more exist. */
export function pageOf<T, Cursor = string>(rows: T[], limit: number, cursorOf: (last: T) => Cursor): Page<T, Cursor> {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: cursorOf(items[items.length - 1]) };
}

/**
 * The order of a list: its sort columns, most significant first. The last one must be unique (an
 * id) so the order is total and the rows after a cursor are exactly the rows not yet shown.
 */
export interface SortKey {
  /** A column, or an expression a list orders by (the ladder's conservative rating with its prior). */
  column: AnyPgColumn | SQL;
  order: "asc" | "desc";
}
export const ascending = (column: AnyPgColumn | SQL): SortKey => ({ column, order: "asc" });
export const descending = (column: AnyPgColumn | SQL): SortKey => ({ column, order: "desc" });

/** One keyset page of a list: which rows, in which order, how many, after which row. */
export interface Keyset {
  /** The list's own filters (the cursor condition is added to them). */
  where?: SQL;
  order: readonly SortKey[];
  limit: number;
  /** The older `offset` of the ranked lists, counted past the cursor. */
  offset?: number;
  /** The last row shown: its sort values in `order`'s order, or one SQL row of them; none on the first page. */
  after?: readonly unknown[] | SQL;
}

/**
 * The one keyset page query of every list: the list's filters and the rows strictly past the
 * cursor, in the list's order, `limit + 1` rows (the extra one only says a next page exists).
 * `query` is the list's `select … from …` in Drizzle's dynamic mode (`.$dynamic()`).
 */
export async function keysetPage<Q extends PgSelect, Row = Awaited<Q>[number]>(query: Q, keyset: Keyset, cursorOf: (last: Row) => string): Promise<Page<Row>> {
  const past = keyset.after === undefined ? undefined : pastKeys(keyset.order, keyset.after);
  let paged = query
    .where(and(keyset.where, past))
    .orderBy(...sortedBy(keyset.order))
    .limit(keyset.limit + 1);
  if (keyset.offset !== undefined) paged = paged.offset(keyset.offset);
  return pageOf((await paged) as Row[], keyset.limit, cursorOf);
}

/** ORDER BY the keys. */
export function sortedBy(order: readonly SortKey[]): SQL[] {
  return order.map((key) => (key.order === "desc" ? desc(key.column) : asc(key.column)));
}

/**
 * The rows strictly past the cursor row in `order`. An id cursor's row (SQL) is one row
 * comparison, `(a, b) > (select a, b …)`, which Postgres reads as a range of the list's index; it
 * needs every key to run the same way. A ranked cursor's values may come in a mixed order (desc,
 * then the id asc), which has no row comparison, so they are compared key by key, each bound
 * through its column (so a Date or a bigint reaches SQL as the column expects).
 */
export function pastKeys(order: readonly SortKey[], after: readonly unknown[] | SQL): SQL {
  if (!Array.isArray(after)) {
    const way = order[0].order;
    // A row comparison orders every key one way: a mixed order would page wrongly, silently.
    invariant(order.every((key) => key.order === way), "an SQL cursor row needs every sort key in one direction");
    return sql`(${sql.join(order.map((key) => key.column), sql`, `)}) ${way === "desc" ? sql`<` : sql`>`} (${after as SQL})`;
  }
  let past: SQL | undefined;
  for (let i = order.length - 1; i >= 0; i--) {
    const { order: keyOrder } = order[i];
    // Overloads take a column or an expression, not the union: both bind the value alike here.
    const column = order[i].column as AnyPgColumn;
    const beyond = keyOrder === "desc" ? lt(column, after[i]) : gt(column, after[i]);
    past = past === undefined ? beyond : or(beyond, and(eq(column, after[i]), past));
  }
  return past!;
}

/**
 * An id cursor (`after` or `before`: the id of the last row shown, the order's last key) as that
 * row's sort values, read in SQL so they are compared at the database's own precision; none
 * without an id. The row is looked for within the list's own scope (`within`): an id from outside
 * the list (another developer's bot or transaction) is refused like an unknown one, a 400 naming
 * the cursor's field.
 */
export async function idCursor(
  db: Queryable,
  table: PgTable,
  order: readonly SortKey[],
  cursor: { id: string | undefined; within?: SQL; field: string; unknown: string; named?: (id: string) => SQL },
): Promise<SQL | undefined> {
  if (cursor.id === undefined) return undefined;
  // `named`: how to find the row of an id the last key computes (a ledger row's, credits/transaction-id.ts).
  const row = and(cursor.named ? cursor.named(cursor.id) : eq(order[order.length - 1].column as AnyPgColumn, cursor.id), cursor.within)!;
  const [known] = await db.select({ known: sql<number>`1` }).from(table).where(row).limit(1);
  if (!known) throw errors.validation(cursor.unknown, { field: cursor.field });
  return cursorRow(table, order, row);
}

/** The sort values of one row, as SQL to compare with (`after` of a Keyset, or `pastKeys`). */
export function cursorRow(table: PgTable, order: readonly SortKey[], row: SQL): SQL {
  return sql`select ${sql.join(order.map((key) => key.column), sql`, `)} from ${table} where ${row}`;
}

/** The `Link` header for the next page: the same path and filters, the new cursor. */
export function nextLink(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  return `<${path}?${query}>; rel="next"`;
}

/** Sets `Link` when a next page exists and answers the page's items (the bare array). */
export function withNextLink<T>(
  set: { headers: Record<string, unknown> },
  page: Page<T>,
  path: string,
  params: (next: string) => Record<string, string | number | undefined>,
): T[] {
  if (page.next !== null) set.headers.link = nextLink(path, params(page.next));
  return page.items;
}

/**
 * An opaque cursor for a ranked list (sort values and the id of the last item): base64url of
 * JSON, so a client passes it back untouched and a ranking that moves cannot skew it. A client can
 * also forge one, so every field is checked against its column before it reaches SQL: a bigint
 * column takes only safe integers (1e308 would reach Postgres as "1e+308", a 500), an integer
 * column only int4, a double only finite numbers, an id only the id alphabet.
 */
const ID = /^[A-Za-z0-9_]{1,64}$/;
const INT4 = 2 ** 31;

export type CursorField = "id" | "bigint" | "int" | "double";
type CursorValue<F extends CursorField> = F extends "id" ? string : number;

const FITS: Record<CursorField, (value: unknown) => boolean> = {
  id: (value) => typeof value === "string" && ID.test(value),
  bigint: (value) => Number.isSafeInteger(value),
  int: (value) => Number.isSafeInteger(value) && (value as number) >= -INT4 && (value as number) < INT4,
  double: (value) => typeof value === "number" && Number.isFinite(value),
};

export const rankCursor = {
  schema: (description: string) => t.String({ minLength: 1, maxLength: 300, pattern: "^[A-Za-z0-9_-]+$", description }),
  encode: (values: Array<string | number>): string => Buffer.from(JSON.stringify(values)).toString("base64url"),
  decode<const T extends ReadonlyArray<CursorField>>(cursor: string, shape: T): { [K in keyof T]: CursorValue<T[K]> } {
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      values = null;
    }
    const fits = Array.isArray(values) && values.length === shape.length && shape.every((field, i) => FITS[field](values[i]));
    if (!fits) throw errors.validation("Invalid after: not a cursor from a Link header of this list", { field: "after" });
    return values as never;
  },
};
