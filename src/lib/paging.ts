import { and, eq, gt, lt, or, type AnyColumn, type SQL } from "drizzle-orm";
import { t } from "elysia";
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

/** A page of a list and the cursor of the next one (null on the last page). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** Rows read with `limit + 1`: the extra row only says that more exist. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: cursorOf(items[items.length - 1]) };
}

/** Keyset: the rows strictly past the cursor row in an order by (at, id), both ascending or both descending. */
export function pastCursor(at: AnyColumn, id: AnyColumn, cursor: { at: unknown; id: string }, order: "asc" | "desc"): SQL {
  const past = order === "desc" ? lt : gt;
  return or(past(at, cursor.at), and(eq(at, cursor.at), past(id, cursor.id)))!;
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
