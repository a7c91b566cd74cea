import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db";

/** How a remote bot is connected: the WebSocket protocol, an LLM agent through /mcp, or an ACPC player on its TCP port. */
export type ConnectionVia = "socket" | "agent" | "acpc";

/** Where the gateway says a bot's socket opened or closed on this node (fire and forget). */
export interface PresenceRecorder {
  opened(botId: string, via: ConnectionVia): void;
  closed(botId: string): void;
}

/**
 * Which node holds each remote bot's socket, in `bot_presence`: so that any node (the ladder's
 * matchmaker) knows whether a bot is connected anywhere, with or without the bus. A row of a node
 * whose lease expired is stale: readers join the live leases (`presentBots`).
 */
export class BotPresence implements PresenceRecorder {
  constructor(
    private readonly db: Db,
    private readonly hostId: string,
    private readonly clock: { now(): number },
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  opened(botId: string, via: ConnectionVia): void {
    void this.db
      .execute(sql`insert into bot_presence (bot_id, host_id, since, via) values (${botId}, ${this.hostId}, ${new Date(this.clock.now()).toISOString()}::timestamptz, ${via})
        on conflict (bot_id) do update set host_id = excluded.host_id, since = excluded.since, via = excluded.via`)
      .catch((error) => this.log(`recording bot ${botId}'s connection failed`, error));
  }

  /** Only this node's row: the bot may already have connected to another node. */
  closed(botId: string): void {
    void this.db
      .execute(sql`delete from bot_presence where bot_id = ${botId} and host_id = ${this.hostId}`)
      .catch((error) => this.log(`recording bot ${botId}'s disconnection failed`, error));
  }

  /** At start: sockets of this HOST_ID's previous process died with it. */
  async forgetThisNode(): Promise<void> {
    await this.db.execute(sql`delete from bot_presence where host_id = ${this.hostId}`);
  }
}

/** Of these bots, those connected on a live node, and how. */
export async function connectionsOf(db: Db, botIds: string[]): Promise<Map<string, ConnectionVia>> {
  if (botIds.length === 0) return new Map();
  const rows = await queryRows<{ bot_id: string; via: ConnectionVia }>(
    db,
    sql`select p.bot_id, p.via from bot_presence p join node_leases l on l.host_id = p.host_id and l.expires_at > now() where p.bot_id = any(${sql.param(botIds)}::text[])`,
  );
  return new Map(rows.map((row) => [row.bot_id, row.via]));
}

/** Of these bots, those whose socket is open on a live node. */
export async function presentBots(db: Db, botIds: string[]): Promise<Set<string>> {
  if (botIds.length === 0) return new Set();
  const rows = await queryRows<{ bot_id: string }>(
    db,
    sql`select p.bot_id from bot_presence p join node_leases l on l.host_id = p.host_id and l.expires_at > now() where p.bot_id = any(${sql.param(botIds)}::text[])`,
  );
  return new Set(rows.map((row) => row.bot_id));
}
