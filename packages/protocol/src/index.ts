/**
 * @poker-bots/protocol — the bot protocol (docs/PROTOCOL.md) and the table config, each defined
 * once as a TypeBox schema; the TypeScript types below are those schemas' `Static<>`, so the JSON
 * Schema (docs/protocol.schema.json), the server's messages and the SDK's types cannot disagree.
 * Cards are strings ("As", "Td"); seats are numbered from 0; amounts are integer chips.
 */
import type { Static } from "@sinclair/typebox";
import type { ActionName as ActionNameSchema, Card as CardSchema, Street as StreetSchema } from "./kit";
import { botMessages } from "./bot-messages";
import { PublicActionName as PublicActionNameSchema, SeatState as SeatStateSchema, serverMessages } from "./server-messages";

export { botMessages } from "./bot-messages";
export { serverMessages, type ErrorCode } from "./server-messages";
export { PublicTableConfig, TableConfig } from "./table-config";
export { protocolSchema } from "./schema-document";

export type Card = Static<typeof CardSchema>;
export type Street = Static<typeof StreetSchema>;
export type ActionName = Static<typeof ActionNameSchema>;
export type PublicActionName = Static<typeof PublicActionNameSchema>;
export type SeatState = Static<typeof SeatStateSchema>;

type Server = typeof serverMessages;
export type WelcomeMessage = Static<Server["welcome"]>;
export type SnapshotMessage = Static<Server["snapshot"]>;
export type MatchStartedMessage = Static<Server["match_started"]>;
/** Sent instead of match_started when another node takes over a match whose host died. */
export type MatchResumedMessage = Static<Server["match_resumed"]>;
export type HandStartedMessage = Static<Server["hand_started"]>;
export type ActionMessage = Static<Server["action"]>;
export type StreetMessage = Static<Server["street"]>;
export type ActionRequestMessage = Static<Server["action_request"]>;
export type HandEndedMessage = Static<Server["hand_ended"]>;
export type MatchEndedMessage = Static<Server["match_ended"]>;
export type ErrorMessage = Static<Server["error"]>;
export type PongMessage = Static<Server["pong"]>;
/** Spectators only (`/api/tables/:tableId/watch`): the first message, with the table. */
export type WatchingMessage = Static<Server["watching"]>;

/** Everything the server sends, to bots and spectators alike. */
export type AnyServerMessage = { [K in keyof Server]: Static<Server[K]> }[keyof Server];
/** Everything the server sends to a bot. */
export type ServerMessage = Exclude<AnyServerMessage, WatchingMessage>;
/** Everything a spectator receives (a `snapshot` right after `watching` when a hand is in play, without hole cards). */
export type SpectatorMessage = Exclude<AnyServerMessage, ActionRequestMessage | WelcomeMessage | PongMessage>;
export type ServerMessageType = ServerMessage["type"];
export type MessageOfType<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>;

/** Bot → server: an answer to an action_request. `amount` only with raise (the total to raise to). */
export type BotActionMessage = Static<(typeof botMessages)["action"]>;
export type PingMessage = Static<(typeof botMessages)["ping"]>;
export type BotMessage = BotActionMessage | PingMessage;
