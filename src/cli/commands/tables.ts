/** CLI: tables create, join, leave, list, show. */
import { bool, int, str, type FlagSpec } from "../args";
import { botIdOf, need, SERVER_FLAG, tableIdOf, type Command } from "../command";

export const tablesCreate: Command = {
  name: "create",
  summary: "Create a table; prints its id and remembers it as `last`.",
  usage: "tables create [--max-players 2] [--max-hands 200] [--buy-in 1000] [--small-blind 5] [--big-blind 10] [--seed s] [--duplicate]",
  details: "The match starts as soon as every seat is taken (`tables join`).",
  flags: {
    "max-players": { kind: "string", value: "n", help: "seats, 2–10 (default 6)" },
    "max-hands": { kind: "string", value: "n", help: "the match ends after this many hands at the latest (default 200)" },
    "buy-in": { kind: "string", value: "chips", help: "chips each bot buys in with, off its owner's balance (default 1000)" },
    "small-blind": { kind: "string", value: "chips", help: "default 5" },
    "big-blind": { kind: "string", value: "chips", help: "default 10" },
    "action-timeout": { kind: "string", value: "ms", help: "per-action time for remote bots (default 2000)" },
    seed: { kind: "string", value: "text", help: "deal from a seeded PRNG (replayable; the table is then private to your bots)" },
    duplicate: { kind: "boolean", help: "heads-up: a duplicate match, two twin tables (the second deals the first's decks, seats swapped; variance control; your built-in and hosted bots only)" },
    ...SERVER_FLAG,
  },
  async run(ctx, parsed) {
    const body: Record<string, unknown> = {};
    for (const [flag, field] of [["max-players", "maxPlayers"], ["max-hands", "maxHands"], ["buy-in", "buyIn"], ["small-blind", "smallBlind"], ["big-blind", "bigBlind"], ["action-timeout", "actionTimeoutMs"]] as const) {
      const value = int(parsed, flag);
      if (value !== undefined) body[field] = value;
    }
    if (str(parsed, "seed")) body.seed = str(parsed, "seed");
    if (bool(parsed, "duplicate")) body.duplicate = true;
    const table = await ctx.api(parsed).request("POST", "/api/tables", body, { auth: true });
    ctx.profile.lastTableId = table.tableId;
    ctx.save();
    const c = table.config;
    ctx.out(`created table ${table.tableId} · ${c.maxPlayers} seats · buy-in ${c.buyIn} · blinds ${c.smallBlind}/${c.bigBlind} · up to ${c.maxHands} hands`);
    if (table.twinTableId) ctx.out(`a duplicate match: copy 2 is table ${table.twinTableId} (a join at either seats the bot at both, each buy-in once per copy)`);
    ctx.out(`next: bun run cli -- tables join ${table.tableId} --bot <name>   (or: tables join last …)`);
    return 0;
  },
};

const seatFlags: FlagSpec = { bot: { kind: "string", value: "name|botId", help: "your bot (a name from `bots create`, or its bot id)" }, ...SERVER_FLAG };

export const tablesJoin: Command = {
  name: "join",
  summary: "Seat your bot at a table (its buy-in comes off your balance).",
  usage: "tables join <tableId|last> --bot <name|botId>",
  details: "The match starts when the table is full.",
  flags: seatFlags,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const botName = need(parsed, "bot");
    const api = ctx.api(parsed);
    const seat = await api.request("POST", `/api/tables/${encodeURIComponent(tableId)}/join`, { botId: botIdOf(ctx, botName) }, { auth: true });
    const table = await api.request("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    const free = table.config.maxPlayers - table.seats.length;
    ctx.out(`seated ${botName} at ${tableId}, seat ${seat.seat}, with ${seat.chips} chips`);
    // A remote bot connected nowhere: seated as asked, and told so (it times out on every turn until it connects).
    if (seat.warning) ctx.err(`warning: ${seat.warning.message}`);
    ctx.out(free > 0 ? `waiting for ${free} more bot${free === 1 ? "" : "s"}` : `the table is full: the match is on (watch it: bun run cli -- watch ${tableId})`);
    return 0;
  },
};

export const tablesLeave: Command = {
  name: "leave",
  summary: "Take your bot off a table (during a match: it folds and cashes out after the current hand).",
  usage: "tables leave <tableId|last> --bot <name|botId>",
  flags: seatFlags,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const result = await ctx.api(parsed).request("POST", `/api/tables/${encodeURIComponent(tableId)}/leave`, { botId: botIdOf(ctx, need(parsed, "bot")) }, { auth: true });
    ctx.out(result.status === "left" ? `left ${tableId}; ${result.cashout} credits returned` : `leaving ${tableId}: the bot folds from now on and cashes out after this hand`);
    return 0;
  },
};

export const tablesDelete: Command = {
  name: "delete",
  summary: "Delete a waiting table you created: every bot seated there is refunded its buy-in.",
  usage: "tables delete <tableId|last>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const result = await ctx.api(parsed).request<{ refunds: Array<{ cashout: number }> }>("DELETE", `/api/tables/${encodeURIComponent(tableId)}`, undefined, { auth: true });
    const credits = result.refunds.reduce((sum, r) => sum + r.cashout, 0);
    ctx.out(`deleted ${tableId}; ${result.refunds.length} bot${result.refunds.length === 1 ? "" : "s"} refunded, ${credits} credits in all`);
    return 0;
  },
};

export const tablesList: Command = {
  name: "list",
  summary: "The lobby: waiting and running tables.",
  usage: "tables list",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const tables = await ctx.api(parsed).request<any[]>("GET", "/api/tables");
    if (tables.length === 0) ctx.out("no open tables: bun run cli -- tables create");
    for (const t of tables) ctx.out(`${t.tableId}  ${t.status}  ${t.seats.length}/${t.config.maxPlayers} seats  blinds ${t.config.smallBlind}/${t.config.bigBlind}  buy-in ${t.config.buyIn}`);
    return 0;
  },
};

export const tablesShow: Command = {
  name: "show",
  summary: "One table: status, seats, match.",
  usage: "tables show <tableId|last>",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const t = await ctx.api(parsed).request("GET", `/api/tables/${encodeURIComponent(tableIdOf(ctx, parsed))}`);
    ctx.out(`${t.tableId} · ${t.status} · ${t.seats.length}/${t.config.maxPlayers} seats · ${t.handsPlayed} hands played${t.matchId ? ` · match ${t.matchId}` : ""}`);
    for (const s of t.seats) ctx.out(`  seat ${s.seat}  ${s.botId}  ${s.chips} chips${s.leaving ? " (leaving)" : ""}`);
    return 0;
  },
};
