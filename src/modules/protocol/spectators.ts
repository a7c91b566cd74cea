import type { BotSocket, ServerMessage } from "./gateway";

/** Sockets watching tables (`/api/tables/:tableId/watch`), by table. */
export class Spectators {
  private readonly byTable = new Map<string, Map<string, BotSocket>>();

  watching(tableId: string): boolean {
    return (this.byTable.get(tableId)?.size ?? 0) > 0;
  }

  add(tableId: string, socket: BotSocket): void {
    let sockets = this.byTable.get(tableId);
    if (!sockets) this.byTable.set(tableId, (sockets = new Map()));
    sockets.set(socket.id, socket);
  }

  remove(tableId: string, socket: BotSocket): void {
    const sockets = this.byTable.get(tableId);
    sockets?.delete(socket.id);
    if (sockets?.size === 0) this.byTable.delete(tableId);
  }

  send(tableId: string, message: ServerMessage): void {
    const sockets = this.byTable.get(tableId);
    if (!sockets) return;
    const text = JSON.stringify(message);
    for (const socket of sockets.values()) {
      try {
        socket.send(text);
      } catch {}
    }
  }

  closeAll(): void {
    for (const sockets of this.byTable.values()) {
      for (const socket of sockets.values()) {
        try {
          socket.close(1001, "server shutting down");
        } catch {}
      }
    }
    this.byTable.clear();
  }
}
