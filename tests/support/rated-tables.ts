/** Built-in bots of separate developers at tables of their own: rated matches, through any test transport. */
import { fundedDeveloper, type ApiCall } from "./developers";

export interface PlayerBot {
  token: string;
  botId: string;
}

/** A funded developer (support/developers.ts) with one built-in bot. */
export async function developerWithBot(api: ApiCall, name: string, strategy: string): Promise<PlayerBot> {
  const dev = await fundedDeveloper(api, { label: name });
  const bot = await api("POST", "/api/bots", { token: dev.token, body: { name, strategy } });
  if (bot.status !== 201) throw new Error(`bot ${name}: ${bot.status} ${JSON.stringify(bot.body)}`);
  return { token: dev.token, botId: bot.body.botId as string };
}

/** A table for exactly these players (buy-in 500 unless `body` says otherwise), every one seated: its match starts. */
export async function playTable(api: ApiCall, players: PlayerBot[], body: Record<string, unknown>): Promise<string> {
  const table = await api("POST", "/api/tables", { token: players[0].token, body: { maxPlayers: players.length, buyIn: 500, ...body } });
  if (table.status !== 201) throw new Error(`table: ${table.status} ${JSON.stringify(table.body)}`);
  for (const p of players) {
    const joined = await api("POST", `/api/tables/${table.body.tableId}/join`, { token: p.token, body: { botId: p.botId } });
    if (joined.status !== 201) throw new Error(`join ${p.botId}: ${joined.status} ${JSON.stringify(joined.body)}`);
  }
  return table.body.tableId as string;
}
