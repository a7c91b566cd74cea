/** CLI: watch a table live, as readable lines. */
import { type SpectatorMessage } from "@poker-bots/sdk";
import { Api } from "../api";
import { TableNarrator } from "@poker-bots/sdk/narrator";
import { SERVER_FLAG, tableIdOf, type Command, type Ctx } from "../command";

export async function botNames(api: Api, ctx: Ctx, botIds: string[], names: Map<string, string>): Promise<void> {
  for (const [name, bot] of Object.entries(ctx.profile.bots ?? {})) names.set(bot.botId, name);
  await Promise.all(
    botIds
      .filter((id) => !names.has(id))
      .map(async (id) => {
        try {
          names.set(id, (await api.request("GET", `/api/bots/${encodeURIComponent(id)}`)).name);
        } catch {}
      }),
  );
}

export async function printMatchRecord(ctx: Ctx, api: Api, narrator: TableNarrator, names: Map<string, string>, matchId: string): Promise<void> {
  const match = await api.request("GET", `/api/matches/${encodeURIComponent(matchId)}`);
  await botNames(api, ctx, match.players.map((p: { botId: string }) => p.botId), names);
  for (const line of narrator.lines({ type: "match_ended", tableId: match.tableId ?? "", matchId, handsPlayed: match.handsPlayed, players: match.players })) ctx.out(line);
}

export const watch: Command = {
  name: "watch",
  summary: "Stream a live table as readable lines (actions, boards, showdowns); exits when the match ends.",
  usage: "watch <tableId|last>",
  details: "Start it before the table fills to see the whole match. A table whose match is over prints the result.",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const tableId = tableIdOf(ctx, parsed);
    const api = ctx.api(parsed);
    const names = new Map<string, string>();
    const narrator = new TableNarrator(names);
    const finishedResult = async (): Promise<number | null> => {
      const table = await api.request("GET", `/api/tables/${encodeURIComponent(tableId)}`);
      if (table.status === "finished" && table.matchId) {
        ctx.out(`table ${tableId}: the match is over`);
        await printMatchRecord(ctx, api, narrator, names, table.matchId);
        return 0;
      }
      if (table.status !== "waiting" && table.status !== "running") {
        ctx.err(`table ${tableId} is ${table.status}: nothing to watch`);
        return 1;
      }
      return null;
    };
    const early = await finishedResult();
    if (early !== null) return early;

    const url = `${api.server.replace(/^http/, "ws")}/api/tables/${encodeURIComponent(tableId)}/watch`;
    let ended = false;
    let notHosted = false;
    await new Promise<void>((resolvePromise) => {
      const socket = new WebSocket(url);
      let chain = Promise.resolve();
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data)) as SpectatorMessage;
        chain = chain.then(async () => {
          if (message.type === "watching") await botNames(api, ctx, message.table.seats.map((s) => s.botId), names);
          if (message.type === "match_started") await botNames(api, ctx, message.seats.map((s) => s.botId), names);
          if (message.type === "error" && message.code === "NOT_FOUND") {
            notHosted = true;
            return;
          }
          for (const line of narrator.lines(message)) ctx.out(line);
          if (message.type === "match_ended") {
            ended = true;
            socket.close(1000);
          }
        });
      };
      socket.onerror = () => {};
      socket.onclose = () => void chain.then(() => resolvePromise());
    });
    if (ended) return 0;
    // The match ended between our look and the socket (or the server went away): report what happened.
    const after = await finishedResult();
    if (after !== null) return after;
    ctx.err(notHosted ? `table ${tableId} is not live on ${api.server}` : "the connection closed before the match ended");
    return 1;
  },
};

// ───────────────────────────── play (local) ─────────────────────────────
