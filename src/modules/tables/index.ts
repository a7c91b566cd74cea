import { TABLE_DEFAULTS, type Config } from "../../config";
import { Elysia, t } from "elysia";
import { AppError } from "../../lib/errors";
import { errorResponses } from "../../lib/http";
import { PAGING_RULE, withNextLink } from "../../lib/paging";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { IdempotencyHeaders, type IdempotencyKeys } from "../../plugins/idempotency";
import { ClosedTable, CreateTableBody, JoinedSeat, LeaveResult, LobbyQuery, SeatBody, Table, TableParams } from "./model";
import type { Tables } from "./service";

export function tablesModule(tables: Tables, auth: AuthOptions, keys: IdempotencyKeys, config: Pick<Config, "defaultBuyIn" | "maxOpenTablesPerDeveloper">) {
  const d = TABLE_DEFAULTS;
  return new Elysia({ name: "module:tables" })
    .use(authPlugin(auth))
    .post(
      "/api/tables",
      ({ developerId, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const table = await tables.create(developerId, body);
          set.status = 201;
          return table;
        }),
      {
        auth: true,
        parse: "json",
        headers: IdempotencyHeaders,
        body: CreateTableBody,
        response: { 201: Table, ...errorResponses(400, 401, 409, 422) },
        detail: {
          tags: ["tables"],
          summary: "Create a table",
          description:
            `409 TOO_MANY_OPEN_TABLES past MAX_OPEN_TABLES_PER_DEVELOPER (${config.maxOpenTablesPerDeveloper}) waiting or running tables of yours. Defaults: buyIn DEFAULT_BUY_IN (${config.defaultBuyIn}), blinds ${d.smallBlind}/${d.bigBlind}, maxPlayers ${d.maxPlayers} (2–10), maxHands ${d.maxHands}, actionTimeoutMs ${d.actionTimeoutMs}. \`seed\` (replays, tests) makes the table private: only your own bots may join, the seed is shown only to you, and its matches never count toward statistics, the leaderboard or ratings (whoever knows the seed knows every card). Rejected (400): non-integers, blinds ≤ 0, smallBlind > bigBlind, bigBlind > buyIn. The match starts when every seat is taken; one match per table. \`duplicate: true\` (heads-up) makes two twin tables, the copies of one duplicate match, and answers copy 1's (\`twinTableId\` names copy 2; the pair counts once toward the cap); a leave or a close at either acts on both.`,
        },
      },
    )
    .get("/api/tables", async ({ query, set }) => withNextLink(set, await tables.lobby(query), "/api/tables", (before) => ({ limit: query.limit, before })), {
      query: LobbyQuery,
      response: { 200: t.Array(Table), ...errorResponses(400) },
      detail: { tags: ["tables"], summary: "The lobby: waiting and running tables", description: `Newest first (ties by tableId). ${PAGING_RULE} The cursor is \`before\`, a tableId. Never carries a seed; seeded (private) tables are listed with \`seeded: true\`. A waiting table nobody sits at expires after WAITING_TABLE_TTL_MS (1 h): status aborted, no longer listed.` },
    })
    .get("/api/tables/:tableId", ({ params, viewerId }) => tables.get(params.tableId, viewerId), {
      optionalAuth: true,
      params: TableParams,
      response: { 200: Table, ...errorResponses(401, 404) },
      detail: {
        tags: ["tables"],
        summary: "One table",
        description:
          "Public. `config.seed` is shown only to the table's creator (send your token); everyone else sees `seeded: true` and no seed. A bad token is a 401, not an anonymous read. Any node of a cluster answers with the live state from the table's host, or from the database (seats, status, hands recorded) when the host does not answer within a second.",
      },
    })
    .post(
      "/api/tables/:tableId/join",
      ({ developerId, params, body, set, request, headers }) =>
        keys.once({ developerId, request, body, headers, set }, async () => {
          const seat = await tables.join(developerId, params.tableId, body.botId);
          set.status = 201;
          return seat;
        }),
      {
        auth: true,
        params: TableParams,
        headers: IdempotencyHeaders,
        parse: "json",
        body: SeatBody,
        response: { 201: JoinedSeat, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 503) },
        detail: {
          tags: ["tables"],
          summary: "Seat a bot (buy in)",
          description:
            "Any node of a cluster answers: the join is carried to the table's host (same status codes and bodies; 503 TABLE_HOST_UNAVAILABLE with Retry-After while a dead host's tables are taken over). The buy-in comes off the owner's balance (402 INSUFFICIENT_BALANCE when it does not cover it) in the same database transaction that opens the seat. 403 not your bot; 403 SEEDED_TABLE_PRIVATE: the table deals from a seed and only its creator's bots may join (nothing is charged); 409 BOT_ALREADY_SEATED (a bot sits at one table, or one duplicate pair, at a time), TABLE_FULL, TABLE_NOT_JOINABLE (running or finished). A duplicate table (`twinTableId` set): the join seats the bot at both copies (copy 2 at the other seat), its two buy-ins in one transaction, and answers its seat at the table named; 403 DUPLICATE_TABLE_PRIVATE for another developer's bot, 409 REMOTE_BOT_AT_DUPLICATE_TABLE for a bot the service does not run (upload its code first: docs/FAIRNESS.md). A remote bot connected to no node is seated as asked, and the answer carries `warning` (BOT_NOT_CONNECTED): it times out on every turn until it connects.",
        },
      },
    )
    .post("/api/tables/:tableId/leave", ({ developerId, params, body, set, request, headers }) => keys.once({ developerId, request, body, headers, set }, () => tables.leave(developerId, params.tableId, body.botId)), {
      auth: true,
      params: TableParams,
      headers: IdempotencyHeaders,
      parse: "json",
      body: SeatBody,
      response: { 200: LeaveResult, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
      detail: {
        tags: ["tables"],
        summary: "Take a bot off a table",
        description:
          "Waiting table: the bot is cashed out at once (status left). Running match: the bot folds from now on, is removed at the end of the current hand and cashed out with its remaining chips (status leaving). Any node of a cluster answers, as for a join (503 TABLE_HOST_UNAVAILABLE with Retry-After while a dead host's tables are taken over).",
      },
    })
    .delete("/api/tables/:tableId", ({ developerId, params, set, request, headers }) => keys.once({ developerId, request, headers, set }, () => tables.close(developerId, params.tableId)), {
      auth: true,
      params: TableParams,
      headers: IdempotencyHeaders,
      response: { 200: ClosedTable, ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
      detail: {
        tags: ["tables"],
        summary: "Delete a waiting table",
        description:
          "The table's creator only (403 otherwise). Every bot seated there is cashed out as if it left (its owner gets the buy-in back, one cashout transaction each), then the table is closed: status closed, no longer in the lobby, still readable by id. A running, finished or already closed table answers 409 TABLE_NOT_WAITING. Any node of a cluster answers, as for a join.",
      },
    })
    .ws("/api/tables/:tableId/watch", {
      params: TableParams,
      async open(ws) {
        const { tableId } = ws.data.params;
        const table = await tables.watch(tableId, ws).catch((error: unknown) => {
          if (!(error instanceof AppError)) throw error;
          ws.send(JSON.stringify({ type: "error", code: error.code, message: error.message }));
          ws.close(4029, "too many spectators");
          return undefined;
        });
        if (table === undefined) return;
        if (!table) {
          ws.send(JSON.stringify({ type: "error", code: "NOT_FOUND", message: "No live table with this id" }));
          ws.close(4004, "no such live table");
          return;
        }
        ws.send(JSON.stringify({ type: "watching", table }));
        // Mid-hand, the hand so far at once: a page opened then shows it instead of an empty felt.
        const snapshot = tables.spectatorSnapshot(tableId);
        if (snapshot) ws.send(JSON.stringify(snapshot));
      },
      close(ws) {
        tables.unwatch(ws.data.params.tableId, ws);
      },
      detail: {
        tags: ["tables"],
        summary: "Watch a table live (WebSocket)",
        description:
          "No authentication. Streams the public messages of the table's match: match_started, hand_started (no hole cards), action, street, hand_ended (showdown cards only), match_ended; first a `watching` message with the table, then, when a hand is in play, a `snapshot` of it (no hole cards: yourSeat and holeCards null). Hole cards are never sent before showdown. At most SPECTATORS_PER_TABLE (500) watchers per table on a node and SPECTATORS_PER_ADDRESS (20) sockets per client address: beyond, an `error` TOO_MANY_SPECTATORS and close code 4029. Any node of a cluster relays the table's messages from its host.",
      },
    });
}
