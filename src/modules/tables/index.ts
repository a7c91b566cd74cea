import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { CreateTableBody, LeaveResult, Seat, SeatBody, Table, TableParams } from "./model";
import type { Spectators } from "../protocol/spectators";
import type { Tables } from "./service";

export function tablesModule(tables: Tables, spectators: Spectators, auth: AuthOptions) {
  return new Elysia({ name: "module:tables" })
    .use(authPlugin(auth))
    .post(
      "/api/tables",
      async ({ developerId, body, set }) => {
        const table = await tables.create(developerId, body);
        set.status = 201;
        return table;
      },
      {
        auth: true,
        parse: "json",
        body: CreateTableBody,
        response: { 201: Table, ...errorResponses(400, 401) },
        detail: {
          tags: ["tables"],
          summary: "Create a table",
          description:
            "Defaults: buyIn DEFAULT_BUY_IN (1000), blinds 5/10, maxPlayers 6 (2–10), maxHands 200, actionTimeoutMs 2000. Rejected (400): non-integers, blinds ≤ 0, smallBlind > bigBlind, bigBlind > buyIn. The match starts when every seat is taken; one match per table.",
        },
      },
    )
    .get("/api/tables", () => tables.lobby(), {
      response: { 200: t.Array(Table) },
      detail: { tags: ["tables"], summary: "The lobby: waiting and running tables", description: "Newest first, at most 500." },
    })
    .get("/api/tables/:tableId", ({ params }) => tables.get(params.tableId), {
      params: TableParams,
      response: { 200: Table, ...errorResponses(404) },
      detail: { tags: ["tables"], summary: "One table" },
    })
    .post(
      "/api/tables/:tableId/join",
      async ({ developerId, params, body, set }) => {
        const seat = await tables.join(developerId, params.tableId, body.botId);
        set.status = 201;
        return seat;
      },
      {
        auth: true,
        params: TableParams,
        parse: "json",
        body: SeatBody,
        response: { 201: Seat, ...errorResponses(400, 401, 402, 403, 404, 409) },
        detail: {
          tags: ["tables"],
          summary: "Seat a bot (buy in)",
          description:
            "The buy-in comes off the owner's balance (402 INSUFFICIENT_BALANCE when it does not cover it) in the same database transaction that opens the seat. 403 not your bot; 409 BOT_ALREADY_SEATED (a bot sits at one table at a time), TABLE_FULL, TABLE_NOT_JOINABLE (running, finished, or hosted by another server process).",
        },
      },
    )
    .post("/api/tables/:tableId/leave", ({ developerId, params, body }) => tables.leave(developerId, params.tableId, body.botId), {
      auth: true,
      params: TableParams,
      parse: "json",
      body: SeatBody,
      response: { 200: LeaveResult, ...errorResponses(400, 401, 403, 404, 409) },
      detail: {
        tags: ["tables"],
        summary: "Take a bot off a table",
        description:
          "Waiting table: the bot is cashed out at once (status left). Running match: the bot folds from now on, is removed at the end of the current hand and cashed out with its remaining chips (status leaving).",
      },
    })
    .ws("/api/tables/:tableId/watch", {
      params: TableParams,
      async open(ws) {
        const { tableId } = ws.data.params;
        if (!tables.isHostedHere(tableId)) {
          ws.send(JSON.stringify({ type: "error", code: "NOT_FOUND", message: "No live table with this id on this server" }));
          ws.close(4004, "no such live table");
          return;
        }
        spectators.add(tableId, ws);
        ws.send(JSON.stringify({ type: "watching", table: await tables.get(tableId) }));
      },
      close(ws) {
        spectators.remove(ws.data.params.tableId, ws);
      },
      detail: {
        tags: ["tables"],
        summary: "Watch a table live (WebSocket)",
        description:
          "No authentication. Streams the public messages of the table's match: match_started, hand_started (no hole cards), action, street, hand_ended (showdown cards only), match_ended; first a `watching` message with the table. Hole cards are never sent before showdown.",
      },
    });
}
