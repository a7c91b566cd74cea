import type { Message } from "./ws-bot";

/** A spectator's socket on one node (`/api/tables/:tableId/watch`): records every message. */
export class Spectator {
  readonly messages: Message[] = [];
  private socket!: WebSocket;
  private waiters: Array<{ predicate: (m: Message) => boolean; resolve: (m: Message) => void }> = [];

  /** Watches the table; resolves once the node said "watching" (the first message). */
  static async watch(nodeUrl: string, tableId: string): Promise<Spectator> {
    const spectator = new Spectator();
    spectator.socket = new WebSocket(`${nodeUrl.replace(/^http/, "ws")}/api/tables/${tableId}/watch`);
    spectator.socket.onmessage = (event) => spectator.onMessage(JSON.parse(String(event.data)));
    await spectator.next((m) => m.type === "watching", 10_000).catch(() => {
      throw new Error(`no "watching" from ${nodeUrl}: ${JSON.stringify(spectator.messages)}`);
    });
    return spectator;
  }

  /** Resolves with the first message (already received or future) matching the predicate. */
  next(predicate: (m: Message) => boolean, timeoutMs = 20_000): Promise<Message> {
    const seen = this.messages.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a spectator's message; last: ${JSON.stringify(this.messages.at(-1))}`)), timeoutMs);
      this.waiters.push({
        predicate,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  close(): void {
    this.socket.close();
  }

  private onMessage(message: Message): void {
    this.messages.push(message);
    this.waiters = this.waiters.filter((w) => {
      if (!w.predicate(message)) return true;
      w.resolve(message);
      return false;
    });
  }
}

/** What one spectator got wrong: a message twice, or a hand of the new host missing. */
export interface StreamFaults {
  /** Hand numbers whose hand_started (or hand_ended) arrived more than once. */
  doubled: number[];
  /** After the resumption: numbers between two consecutive hand_started that never arrived. */
  gaps: number[];
  /** hand_started messages checked after the resumption. */
  checkedAfterResume: number;
}

/**
 * Each message once and no gap: every hand_started and hand_ended at most once, and after the
 * match_resumed the new host's hands arrive one after another (it deals consecutive numbers).
 */
export function streamFaults(messages: Message[]): StreamFaults {
  const doubled = new Set<number>();
  for (const type of ["hand_started", "hand_ended"]) {
    const seen = new Set<number>();
    for (const m of messages) if (m.type === type) (seen.has(m.handNumber) ? doubled : seen).add(m.handNumber);
  }
  const resumedAt = messages.findIndex((m) => m.type === "match_resumed");
  const after = resumedAt < 0 ? [] : messages.slice(resumedAt).filter((m) => m.type === "hand_started").map((m) => m.handNumber as number);
  const gaps: number[] = [];
  for (let i = 1; i < after.length; i++) for (let n = after[i - 1] + 1; n < after[i]; n++) gaps.push(n);
  return { doubled: [...doubled], gaps, checkedAfterResume: after.length };
}
