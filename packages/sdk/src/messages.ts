/**
 * Every message of the bot protocol (docs/PROTOCOL.md), as TypeScript types: those of
 * @poker-bots/protocol, the one definition the server builds its messages from, under the names
 * bots already use. Cards are strings ("As", "Td"); seats are numbered from 0; amounts are integer chips.
 */
import { serverMessages, type PublicTableConfig, type ServerMessage } from "@poker-bots/protocol";

export type {
  ActionMessage,
  ActionName,
  ActionRequestMessage,
  BotActionMessage,
  BotMessage,
  Card,
  ErrorCode,
  ErrorMessage,
  HandEndedMessage,
  HandStartedMessage,
  MatchEndedMessage,
  MatchResumedMessage,
  MatchStartedMessage,
  MessageOfType,
  PingMessage,
  PongMessage,
  PublicActionName,
  SeatState,
  ServerMessage,
  ServerMessageType,
  SnapshotMessage,
  SpectatorMessage,
  Street,
  StreetMessage,
  WatchingMessage,
  WelcomeMessage,
} from "@poker-bots/protocol";

/** A table's config as a bot sees it: never the seed (only the table's creator reads that over HTTP). */
export type TableConfig = PublicTableConfig;

const SERVER_TYPES = new Set<string>(Object.keys(serverMessages));

/** Parses one frame; null when it is not a JSON object with a known `type`. */
export function parseServerMessage(data: unknown): ServerMessage | null {
  let value: unknown = data;
  if (typeof data === "string") {
    try {
      value = JSON.parse(data);
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !SERVER_TYPES.has(type)) return null;
  return value as ServerMessage;
}
