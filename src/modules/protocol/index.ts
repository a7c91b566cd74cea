import { Elysia, t } from "elysia";
import { errors } from "../../lib/errors";
import { bearerToken } from "../../plugins/auth";
import { hashApiKey, type Bots } from "../bots/service";
import type { BotGateway } from "./gateway";
import { welcomeMessage } from "./messages";

/** Largest frame a bot or a spectator may send; anything bigger closes the socket (1009). */
export const MAX_FRAME_BYTES = 16 * 1024;

/**
 * The bot protocol endpoint (SPEC §7): `GET /api/bots/connect` upgraded to a WebSocket, the bot
 * identified by its api key (`Authorization: Bearer pbk_…` or `?apiKey=`). See docs/PROTOCOL.md.
 */
export function protocolModule(bots: Bots, gateway: BotGateway) {
  return new Elysia({ name: "module:protocol" })
    .macro({
      botApiKey: {
        async resolve({ query, headers }) {
          const apiKey = (query as { apiKey?: string }).apiKey ?? bearerToken(headers.authorization);
          if (!apiKey) throw errors.unauthorized("Connect with the bot's api key: Authorization: Bearer pbk_… or ?apiKey=");
          const bot = await bots.findByApiKey(apiKey);
          if (!bot) throw errors.unauthorized("Unknown api key");
          // A hosted bot's socket is told at once that its code plays, not it (docs/PROTOCOL.md, welcome).
          const hostedVersion = (await bots.codeVersions([bot.botId])).get(bot.botId);
          return { bot, keyHash: hashApiKey(apiKey), hostedVersion };
        },
      },
    })
    .ws("/api/bots/connect", {
    botApiKey: true,
    query: t.Object({ apiKey: t.Optional(t.String({ maxLength: 200 })) }),
    idleTimeout: 120,
    open(ws) {
      const { bot, keyHash, hostedVersion } = ws.data;
      gateway.connect(bot.botId, ws, welcomeMessage(bot, new Date(), hostedVersion), keyHash);
    },
    message(ws, message) {
      gateway.receive(ws, message);
    },
    close(ws) {
      gateway.disconnect(ws);
    },
    detail: {
      tags: ["bots"],
      summary: "Bot protocol (WebSocket)",
      description: "Upgrade to a WebSocket with the bot's api key. Messages are JSON objects with a `type`; see docs/PROTOCOL.md.",
    },
  });
}
