import { botMessages } from "./bot-messages";
import { serverMessages } from "./server-messages";

/**
 * The whole protocol as one JSON Schema document: a message is one of `ServerMessage` or
 * `BotMessage`. `bun run protocol:schema` writes it to docs/protocol.schema.json (a test keeps the
 * file current).
 */
export function protocolSchema() {
  const refs = (prefix: string, names: string[]) => names.map((name) => ({ $ref: `#/$defs/${prefix}${name}` }));
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(serverMessages)) defs[`server.${name}`] = schema;
  for (const [name, schema] of Object.entries(botMessages)) defs[`bot.${name}`] = schema;
  return JSON.parse(
    JSON.stringify({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://poker-bots.local/protocol.schema.json",
      title: "Poker bot protocol (WebSocket /api/bots/connect and /api/tables/{tableId}/watch), version 1",
      description: "Every message is one JSON object with a `type`. See docs/PROTOCOL.md for when each is sent.",
      oneOf: [{ $ref: "#/$defs/ServerMessage" }, { $ref: "#/$defs/BotMessage" }],
      $defs: {
        ServerMessage: { description: "Server to bot (and to spectators)", oneOf: refs("server.", Object.keys(serverMessages)) },
        BotMessage: { description: "Bot to server", oneOf: refs("bot.", Object.keys(botMessages)) },
        ...defs,
      },
    }),
  );
}
