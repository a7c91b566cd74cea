import type { Socket, TCPSocketListener } from "bun";
import { tableConfigOf } from "../../db/table-config";
import { sql } from "drizzle-orm";
import type { ServerMessage, TableConfig } from "@poker-bots/protocol";
import { queryRows, type Db } from "../../db";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import type { Bots } from "../bots/service";
import type { BotGateway, BotSocket } from "../protocol/gateway";
import { welcomeMessage } from "../protocol/messages";
import { AcpcMatchState, gameDefinition } from "./match-state";

export interface AcpcPort {
  host: string;
  port: number;
  gameDefinition: string;
  expiresAt: string;
}

/** A line longer than this is no ACPC line: the connection is closed. */
const MAX_LINE = 1024;

/**
 * An ACPC player's connection as the gateway sees it: the gateway's messages become MATCHSTATE
 * lines (AcpcMatchState), its answer lines become `action`s. Everything else is a WebSocket's: at
 * the table it is a remote seat (seats/remote.ts) asked by seats/decide.ts (the request, its clock,
 * the legality check and fallback), and the gateway relays it to the table's node.
 */
class AcpcSocket implements BotSocket {
  readonly id = `acpc_${crypto.randomUUID()}`;
  readonly via = "acpc";
  private readonly state = new AcpcMatchState();
  private flushQueued = false;

  constructor(
    private readonly tcp: Socket<unknown>,
    private readonly gateway: BotGateway,
  ) {}

  send(data: string): void {
    const message = JSON.parse(data) as ServerMessage;
    // An ACPC player's game definition fixes every hand's stacks: it sits only at reset-stacks tables.
    if ((message.type === "match_started" || message.type === "match_resumed") && message.config.resetStacks === undefined) {
      this.close();
      return;
    }
    const early = this.state.receive(message);
    // Answered before the request came: played after this message is delivered, not inside it.
    if (early) queueMicrotask(() => this.gateway.receive(this, { type: "action", ...early }));
    if (this.flushQueued) return;
    this.flushQueued = true;
    // One burst of messages (an action, the street it closes, the hand's end) is one state line.
    queueMicrotask(() => {
      this.flushQueued = false;
      const lines = this.state.take();
      if (lines.length > 0) this.tcp.write(lines.map((line) => `${line}\r\n`).join(""));
    });
  }

  close(): void {
    this.tcp.end();
  }

  /** One line from the player (without its line end). */
  line(text: string): void {
    const answer = this.state.answer(text);
    if (answer) this.gateway.receive(this, { type: "action", ...answer });
  }
}

interface Connection {
  buffer: string;
  greeted: boolean;
  seat: AcpcSocket | null;
}

/**
 * One-time TCP ports for ACPC players (`POST /api/bots/:botId/acpc`), like the ACPC dealer's
 * per-seat ports. The protocol has no authentication, so a port takes one connection and then
 * stops listening, and closes if nobody connects within ACPC_PORT_TTL_MS: whoever learns the port
 * in that window could play the bot once (docs/INTEROP.md).
 */
export class AcpcPorts {
  private readonly listeners = new Map<string, { listener: TCPSocketListener<Connection>; timer: unknown }>();

  constructor(private readonly deps: { db: Db; bots: Bots; gateway: BotGateway; clock: Clock; bindHost: string; publicHost: string | undefined; portTtlMs: number }) {}

  async open(developerId: string, botId: string, requestHost: string): Promise<AcpcPort> {
    const bot = await this.deps.bots.findOwned(developerId, botId);
    if (bot.retiredAt) throw errors.conflict("BOT_RETIRED", "This bot is retired");
    if (bot.strategy) throw errors.conflict("BUILT_IN_BOT", "The service plays this bot itself (a built-in strategy)");
    if ((await this.deps.bots.codeVersions([botId])).has(botId)) throw errors.conflict("CONFLICT", "This bot is hosted: its code plays, not an ACPC player");
    const config = await this.resetStacksTableOf(botId);
    this.closePort(botId);
    const { gateway } = this.deps;
    const listener = Bun.listen<Connection>({
      hostname: this.deps.bindHost,
      port: 0,
      socket: {
        open: (socket) => {
          socket.data = { buffer: "", greeted: false, seat: null };
          if (this.listeners.get(botId)?.listener !== listener) return void socket.end();
          // Single use: the first connection takes the port, which stops listening at once.
          this.closePort(botId);
        },
        data: (socket, chunk) => {
          const connection = socket.data;
          connection.buffer += chunk.toString();
          for (let end = connection.buffer.indexOf("\n"); end >= 0; end = connection.buffer.indexOf("\n")) {
            const text = connection.buffer.slice(0, end).replace(/\r$/, "");
            connection.buffer = connection.buffer.slice(end + 1);
            if (!connection.greeted) {
              if (!/^VERSION:2\.\d+\.\d+$/.test(text)) return void socket.end();
              connection.greeted = true;
              connection.seat = new AcpcSocket(socket, gateway);
              gateway.connect(botId, connection.seat, welcomeMessage(bot, new Date(this.deps.clock.now()), undefined));
              continue;
            }
            connection.seat?.line(text);
          }
          if (connection.buffer.length > MAX_LINE) socket.end();
        },
        close: (socket) => {
          if (socket.data?.seat) gateway.disconnect(socket.data.seat);
        },
        error: (socket) => {
          if (socket.data?.seat) gateway.disconnect(socket.data.seat);
        },
      },
    });
    const expiresAtMs = this.deps.clock.now() + this.deps.portTtlMs;
    const timer = this.deps.clock.setTimeout(() => {
      if (this.listeners.get(botId)?.listener === listener) this.closePort(botId);
    }, this.deps.portTtlMs);
    this.listeners.set(botId, { listener, timer });
    return { host: this.deps.publicHost ?? requestHost, port: listener.port, gameDefinition: gameDefinition(config), expiresAt: new Date(expiresAtMs).toISOString() };
  }

  /** Whether the bot has a port still waiting for its player. */
  hasOpenPort(botId: string): boolean {
    return this.listeners.has(botId);
  }

  closeAll(): void {
    for (const botId of [...this.listeners.keys()]) this.closePort(botId);
  }

  private closePort(botId: string): void {
    const open = this.listeners.get(botId);
    if (!open) return;
    this.listeners.delete(botId);
    this.deps.clock.clearTimeout(open.timer);
    open.listener.stop(false);
  }

  /** The reset-stacks table the bot sits at (its game definition is the port's). */
  private async resetStacksTableOf(botId: string): Promise<TableConfig & { resetStacks: number }> {
    const rows = await queryRows<{ config: TableConfig }>(
      this.deps.db,
      sql`select ${tableConfigOf("t")} as config from seats s join tables t on t.id = s.table_id where s.bot_id = ${botId} and s.status = 'open' and t.status in ('waiting', 'running') limit 1`,
    );
    const config = rows[0]?.config;
    if (!config || config.resetStacks === undefined) {
      throw errors.conflict("CONFLICT", "Seat the bot at a waiting reset-stacks table first (POST /api/tables with resetStacks, then join): an ACPC player's game definition fixes every hand's stacks");
    }
    return config as TableConfig & { resetStacks: number };
  }
}
